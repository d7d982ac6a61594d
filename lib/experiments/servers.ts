/** An optional engine that cannot be had (MongoDB with no image, mongod or URI) is reported, not fatal. */
import { createTarget, decideTarget, MissingUriError } from "../targets/select";
import type { TargetChoice, TargetDecision, TargetOptions } from "../targets/select";
import { checkEngine, ENGINE_FACTS, ENGINES } from "../targets/engines";
import type { Engine, ServerSpec, StartedServer } from "../targets/types";
import { redactText } from "../targets/uri";
import { ignored } from "../runtime/debug";
import { describeRunner, locatePgbench, type PgbenchRunner } from "../workloads/pgbench";
import { errorMessage } from "../runtime/error-message";

export interface StartedServers {
  readonly byEngine: ReadonlyMap<Engine, StartedServer>;
  readonly unavailable: ReadonlyMap<Engine, string>;
  readonly notes: readonly string[];
  stopAll(): Promise<void>;
}

interface Entry {
  readonly name: string;
  readonly server: StartedServer;
  /** A primary's standbys are not watched by the stall watchdog. */
  readonly watched: boolean;
}

/** Stopped in reverse order, so that a primary's standbys stop before it. */
export class ServerSet implements StartedServers {
  private readonly entries: Entry[] = [];
  private readonly latest = new Map<Engine, StartedServer>();
  readonly unavailable = new Map<Engine, string>();
  readonly notes: string[] = [];

  /** Kept current in place: the watchdog holds this map. */
  get byEngine(): ReadonlyMap<Engine, StartedServer> {
    return this.latest;
  }

  all(): readonly StartedServer[] {
    return this.entries.map((e) => e.server);
  }

  get(name: string): StartedServer | undefined {
    return this.entries.find((e) => e.name === name)?.server;
  }

  add<S extends StartedServer>(name: string, server: S, options: { readonly watched?: boolean } = {}): S {
    let unique = name;
    for (let n = 2; this.get(unique); n++) unique = `${name}-${n}`;
    this.entries.push({ name: unique, server, watched: options.watched ?? true });
    this.refresh();
    return server;
  }

  /** Leaves the set first, so a failed stop is not retried at the end. */
  async stop(server: StartedServer): Promise<void> {
    const i = this.entries.findIndex((e) => e.server === server);
    if (i >= 0) this.entries.splice(i, 1);
    this.refresh();
    await server.stop();
  }

  async stopAll(): Promise<void> {
    for (const e of this.entries.splice(0).reverse()) await e.server.stop().catch(ignored(`servers: stop ${e.name}`));
    this.refresh();
  }

  private refresh(): void {
    this.latest.clear();
    for (const e of this.entries) if (e.watched) this.latest.set(e.server.engine, e.server);
  }
}

export async function startOn(
  spec: ServerSpec,
  decision: Pick<TargetDecision, "kind" | "reason">,
  options: TargetOptions,
): Promise<{ readonly server: StartedServer; readonly notes: readonly string[] }> {
  // Also into the run's notes, which a headless run prints.
  const said: string[] = [];
  const onNote = (message: string): void => {
    console.log(message);
    said.push(message);
  };
  const target = await createTarget(spec.engine, decision.kind, { ...options, onNote });
  const limits = { cpus: options.cpus, memoryBytes: options.memoryBytes, ...spec.limits };
  const server = await target.start({ ...spec, limits });
  const d = server.description;
  const image = d.standInImage ? " (stand-in image built from the embedded binaries, not the official image)" : "";
  const note = `${spec.engine} ${d.version} on the ${d.kind} target (${decision.reason}): ${d.source}${image}`;
  return { server, notes: [note, ...said] };
}

export async function startServers(
  specs: readonly ServerSpec[],
  options: TargetOptions & { readonly target: TargetChoice },
): Promise<ServerSet> {
  // Before the first start, so an unknown engine does not leave others started for nothing.
  for (const spec of specs) checkEngine(spec.engine);
  const set = new ServerSet();
  const optional = ENGINES.filter((e) => ENGINE_FACTS[e].optional);
  try {
    for (const spec of specs) {
      const decision = await decideTarget(spec.engine, options.target).catch((error: unknown) => {
        // Only a missing URI of an optional engine lets the run go on.
        if (!(error instanceof MissingUriError && optional.includes(spec.engine))) throw error;
        set.unavailable.set(spec.engine, `no ${ENGINE_FACTS[spec.engine].uriVariable} given`);
      });
      if (!decision) continue;
      try {
        const { server, notes } = await startOn(spec, decision, options);
        set.add(spec.name ?? spec.engine, server);
        set.notes.push(...notes);
      } catch (error) {
        const reason = redactText(errorMessage(error));
        if (!optional.includes(spec.engine)) throw error;
        set.unavailable.set(spec.engine, reason);
      }
    }
  } catch (error) {
    await set.stopAll();
    throw error;
  }
  return set;
}

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
