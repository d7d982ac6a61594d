/**
 * Starting the servers an experiment needs, and saying plainly which engine could not be had
 * (e.g. MongoDB on a machine with no image, no mongod and no URI) instead of failing the run.
 */
import {
  createTarget,
  decideTarget,
  type TargetChoice,
  type TargetDecision,
  type TargetOptions,
} from "../targets/select";
import type { Engine, ServerSpec, StartedServer } from "../targets/types";
import { redactText } from "../targets/uri";
import { ignored } from "../runtime/debug";

export interface StartedServers {
  readonly servers: ReadonlyMap<Engine, StartedServer>;
  /** Engines that could not be started, with the reason, for the notebook and the report. */
  readonly unavailable: ReadonlyMap<Engine, string>;
  readonly notes: readonly string[];
  stopAll(): Promise<void>;
}

export interface StartOptions {
  readonly target: TargetChoice;
  readonly cpus?: number;
  readonly memoryBytes?: number;
  /** Engines whose absence is reported rather than fatal (MongoDB by default). */
  readonly optional?: readonly Engine[];
  readonly onProgress?: (message: string) => void;
}

/**
 * Starts one server on the target `decision` names, with `options`' limits as defaults under the
 * spec's own, and the sentence the run's notes keep about it (version, target and why, image).
 */
export async function startOn(
  spec: ServerSpec,
  decision: Pick<TargetDecision, "kind" | "reason">,
  options: TargetOptions,
): Promise<{ readonly server: StartedServer; readonly note: string }> {
  const target = await createTarget(spec.engine, decision.kind, options);
  const server = await target.start({
    ...spec,
    limits: { cpus: options.cpus, memoryBytes: options.memoryBytes, ...spec.limits },
  });
  const d = server.description;
  const image = d.standInImage ? " (stand-in image built from the embedded binaries, not the official image)" : "";
  return {
    server,
    note: `${spec.engine} ${d.version} on the ${d.kind} target (${decision.reason}): ${d.source}${image}`,
  };
}

export async function startServers(specs: readonly ServerSpec[], options: StartOptions): Promise<StartedServers> {
  const servers = new Map<Engine, StartedServer>();
  const unavailable = new Map<Engine, string>();
  const notes: string[] = [];
  const optional = options.optional ?? ["mongodb"];
  const stopAll = async () => {
    for (const server of servers.values()) await server.stop().catch(ignored("servers: stop a server"));
  };
  try {
    for (const spec of specs) {
      const decision = await decideTarget(spec.engine, options.target);
      try {
        const { server, note } = await startOn(spec, decision, options);
        servers.set(spec.engine, server);
        notes.push(note);
      } catch (error) {
        const reason = redactText(error instanceof Error ? error.message : String(error));
        if (!optional.includes(spec.engine)) throw error;
        // Said once, prominently, by the notebook (and kept in metadata.unavailable).
        unavailable.set(spec.engine, reason);
      }
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { servers, unavailable, notes, stopAll };
}
