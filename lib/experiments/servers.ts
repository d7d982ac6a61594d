/**
 * Starting the servers an experiment needs, and saying plainly which engine could not be had
 * (e.g. MongoDB on a machine with no image, no mongod and no URI) instead of failing the run.
 */
import {
  createTarget,
  decideTarget,
  MissingUriError,
  type TargetChoice,
  type TargetDecision,
  type TargetOptions,
} from "../targets/select";
import { checkEngine, ENGINE_FACTS, ENGINES } from "../targets/engines";
import type { Engine, ServerSpec, StartedServer } from "../targets/types";
import { redactText } from "../targets/uri";
import { ignored } from "../runtime/debug";
import { describeRunner, locatePgbench, type PgbenchRunner } from "../workloads/pgbench";

export interface StartedServers {
  /** Per engine, the latest watched server still running: the one its engine's trials run on. */
  readonly byEngine: ReadonlyMap<Engine, StartedServer>;
  /** Engines that could not be started, with the reason, for the notebook and the report. */
  readonly unavailable: ReadonlyMap<Engine, string>;
  readonly notes: readonly string[];
  stopAll(): Promise<void>;
}

interface Entry {
  readonly name: string;
  readonly server: StartedServer;
  /** The server its engine's trials run on (the stall watchdog's); a primary's standbys are not. */
  readonly watched: boolean;
}

/**
 * A run's servers by name, in the order they came: each either watched (the server of its engine
 * for the stall watchdog, the latest one if two of an engine are running) or not, and stopped in
 * the reverse order, so that a primary's standbys stop before it. A phase's server the next phase
 * does not use is stopped on its own (`stop`).
 */
export class ServerSet implements StartedServers {
  private readonly entries: Entry[] = [];
  private readonly latest = new Map<Engine, StartedServer>();
  readonly unavailable = new Map<Engine, string>();
  readonly notes: string[] = [];

  /** The watched view, kept current as servers come and go (the watchdog holds this map). */
  get byEngine(): ReadonlyMap<Engine, StartedServer> {
    return this.latest;
  }

  /** Every server still running, in the order they came. */
  all(): readonly StartedServer[] {
    return this.entries.map((e) => e.server);
  }

  get(name: string): StartedServer | undefined {
    return this.entries.find((e) => e.name === name)?.server;
  }

  /** Adds a running server under `name` (made unique with "-2", "-3" when one of that name runs). */
  add<S extends StartedServer>(name: string, server: S, options: { readonly watched?: boolean } = {}): S {
    let unique = name;
    for (let n = 2; this.get(unique); n++) unique = `${name}-${n}`;
    this.entries.push({ name: unique, server, watched: options.watched ?? true });
    this.refresh();
    return server;
  }

  /** Stops one server now; it leaves the set first, so a failed stop is not retried at the end. */
  async stop(server: StartedServer): Promise<void> {
    const i = this.entries.findIndex((e) => e.server === server);
    if (i >= 0) this.entries.splice(i, 1);
    this.refresh();
    await server.stop();
  }

  /** Stops every server, the last to come first; a failed stop does not keep the others running. */
  async stopAll(): Promise<void> {
    for (const e of this.entries.splice(0).reverse()) await e.server.stop().catch(ignored(`servers: stop ${e.name}`));
    this.refresh();
  }

  private refresh(): void {
    this.latest.clear();
    for (const e of this.entries) if (e.watched) this.latest.set(e.server.engine, e.server);
  }
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
): Promise<{ readonly server: StartedServer; readonly notes: readonly string[] }> {
  // What the target says while it starts (an external server's leftovers of dead runs, dropped)
  // goes to the cell's output as before, and into the run's notes, which a headless run prints.
  const said: string[] = [];
  const onNote = (message: string): void => {
    console.log(message);
    said.push(message);
  };
  const target = await createTarget(spec.engine, decision.kind, { ...options, onNote });
  const server = await target.start({
    ...spec,
    limits: { cpus: options.cpus, memoryBytes: options.memoryBytes, ...spec.limits },
  });
  const d = server.description;
  const image = d.standInImage ? " (stand-in image built from the embedded binaries, not the official image)" : "";
  return {
    server,
    notes: [`${spec.engine} ${d.version} on the ${d.kind} target (${decision.reason}): ${d.source}${image}`, ...said],
  };
}

/** Starts `specs` in order into a new ServerSet (named by `spec.name`, else the engine), all watched. */
export async function startServers(specs: readonly ServerSpec[], options: StartOptions): Promise<ServerSet> {
  // Every name is checked before the first server starts: an unknown engine second in the list
  // must not leave the first one started for nothing.
  for (const spec of specs) checkEngine(spec.engine);
  const set = new ServerSet();
  const optional = options.optional ?? ENGINES.filter((e) => ENGINE_FACTS[e].optional);
  try {
    for (const spec of specs) {
      let decision: TargetDecision;
      try {
        decision = await decideTarget(spec.engine, options.target);
      } catch (error) {
        // DBLAB_TARGET=external with only DBLAB_POSTGRES_URI set: MongoDB is unavailable, the run goes on.
        // Any other refusal of the choice (an unknown DBLAB_TARGET, no Docker daemon) stays fatal.
        if (!(error instanceof MissingUriError && optional.includes(spec.engine))) throw error;
        set.unavailable.set(spec.engine, `no ${ENGINE_FACTS[spec.engine].uriVariable} given`);
        continue;
      }
      try {
        const { server, notes } = await startOn(spec, decision, options);
        set.add(spec.name ?? spec.engine, server);
        set.notes.push(...notes);
      } catch (error) {
        const reason = redactText(error instanceof Error ? error.message : String(error));
        if (!optional.includes(spec.engine)) throw error;
        // Said once, prominently, by the notebook (and kept in metadata.unavailable).
        set.unavailable.set(spec.engine, reason);
      }
    }
  } catch (error) {
    await set.stopAll();
    throw error;
  }
  return set;
}

/**
 * The PostgreSQL server a pgbench-driven notebook (03, 04, 06) works on and the pgbench that drives
 * it, noted once in the run's notes (which pgbench, from where, against which server).
 */
export async function pgbenchOnPostgres(
  servers: StartedServers,
  notebook: string,
  notes: string[],
): Promise<{ readonly server: StartedServer; readonly runner: PgbenchRunner }> {
  const server = servers.byEngine.get("postgresql");
  if (!server) throw new Error(`${notebook} needs a PostgreSQL server, and none started`);
  const runner = await locatePgbench(server);
  notes.push(`pgbench ${runner.version} (${describeRunner(runner)}) drives PostgreSQL ${server.description.version}`);
  return { server, runner };
}
