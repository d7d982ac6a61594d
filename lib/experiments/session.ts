/** Around every run: reap leftovers, open the store, start and watch the servers, heed interrupts, always stop them. */
import fs from "node:fs";
import os from "node:os";
import { nonDefaultSettings } from "../engines/postgres/server-settings";
import { redactText } from "../targets/uri";
import { ENGINE_FACTS } from "../targets/engines";
import { progressReporter, type ProgressReporter } from "../display/progress";
import { gitCommit, hostInfo, type RunMetadata } from "../results/metadata";
import { RunStore } from "../results/run-store";
import { endInterruptible, InterruptedError, interruptSignal } from "../runtime/interrupt";
import { isInputError } from "../runtime/input-error";
import { reapOrphans } from "../runtime/reaper";
import { listRecords, ownRecords } from "../runtime/resource-registry";
import { decideTarget, plannedTargetKind, type TargetChoice } from "../targets/select";
import type { DockerEndpoint } from "../targets/docker/endpoint";
import type {
  ConnectionInfo,
  LinkTraffic,
  ServerDescription,
  ServerSpec,
  StartedServer,
  TargetKind,
} from "../targets/types";
import { ignored } from "../runtime/debug";
import {
  explainRunError,
  isDockerHostLoss,
  stallBoundFromEnv,
  TrialWatchdog,
  withWatchdog,
} from "../workloads/watchdog";
import { ServerSet, startOn, startServers, type StartedServers } from "./servers";
import { connect } from "../engines/postgres/connect";
import { selectOneProbe } from "../workloads/statement-timing";
import { cpuProbeSeconds, etaText, writeProbeSeconds, type Estimate } from "./eta";
import {
  closeWindow,
  HostMonitor,
  openWindow,
  rttJitter,
  sampleHost,
  type Quietness,
  type RttJitter,
} from "../results/quietness";
import { errorMessage, extendMessage } from "../runtime/error-message";

export interface RunControl {
  /** Resume this run id: finished trials are skipped; parameters must match. */
  readonly resumeId?: string;
  readonly profile?: string;
  /** Defaults to a signal aborted by the next SIGINT (a Jupyter interrupt). */
  readonly signal?: AbortSignal;
  readonly continueOnError?: boolean;
}

export interface SessionOptions {
  readonly notebook: string;
  readonly title: string;
  readonly params: object;
  readonly control: RunControl;
  /** May be empty when the work starts its own (`startServer`). */
  readonly specs: readonly ServerSpec[];
  readonly target: TargetChoice;
  /** Limits per server (docker); without them the target's defaults apply. */
  readonly cpus?: number;
  readonly memoryGiB?: number;
  /** The notebook's `planClaims` line, said with the ETA before any server starts. */
  readonly prospect?: string;
  readonly estimate?: (done: ReadonlySet<string>) => Estimate | undefined;
}

/** Where a server started during the work runs, when not on the session's target. */
export interface ServerPlace {
  /** For a capability only that kind gives (05's standbys copy the primary's data directory). */
  readonly target?: TargetKind;
  readonly endpoint?: DockerEndpoint;
  readonly baseDir?: string;
}

export interface ExperimentSession<C extends object> {
  readonly store: RunStore<C>;
  readonly progress: ProgressReporter;
  /** `servers.byEngine` is per engine the latest watched one still running. */
  readonly servers: ServerSet;
  readonly signal: AbortSignal;
  readonly notes: string[];
  readonly metadata: RunMetadata;
  readonly writeMetadata: (extra?: object) => void;
  /** Treated as an up-front server from then on: recorded, watched, stopped when the session ends. */
  startServer(spec: ServerSpec, place?: ServerPlace): Promise<StartedServer>;
  /** Recorded and stopped (before the server that started it), but not watched: trials run on the primary. */
  adopt<S extends StartedServer>(server: S): S;
  stopServer(server: StartedServer): Promise<void>;
}

type Kept = { readonly runId: string; readonly directory: string; trials(): readonly { readonly status?: unknown }[] };
const trialsOf = (n: number, planned: number) => `${n}${planned > 0 ? ` of ${planned}` : ""} trials`;
const resumeWith = (store: Kept) => `the same parameters and { resumeId: "${store.runId}" } in the run's options`;

export function interruptedMessage(store: Kept, planned: number, signal?: string): string {
  const kept = trialsOf(store.trials().length, planned);
  return `interrupted${signal ? ` (${signal})` : ""}: ${kept} kept in ${store.directory}; its servers were stopped. Resume with ${resumeWith(store)}.`;
}

export function resumeHint(store: Kept, planned: number): string {
  const finished = trialsOf(store.trials().filter((t) => t.status !== "failed").length, planned);
  return (
    `${finished} finished and are kept in ${store.directory}. Once the engine answers again, resume with ${resumeWith(store)}; ` +
    "its container is removed then (or by `npm run clean`: its record is kept)"
  );
}

type Keyed = { trials(): readonly { readonly key: string; readonly status: string }[] };
const finishedKeys = (store: Keyed): Set<string> =>
  new Set(store.trials().flatMap((t) => (t.status === "ok" ? [t.key] : [])));

/** Refitted as trials end or the plan grows, counted down between fits; never below what unstarted trials need. */
export function modelLeft(
  options: Pick<SessionOptions, "estimate">,
  store: Keyed,
  now: () => number = Date.now,
): ((done: number, total: number) => number | undefined) | undefined {
  const estimate = options.estimate;
  if (!estimate) return undefined;
  let at = "";
  let fit: { readonly seconds: number; readonly floor: number; readonly atMs: number } | undefined;
  return (done, total) => {
    if (`${done}/${total}` !== at) {
      at = `${done}/${total}`;
      const e = estimate(finishedKeys(store));
      fit = e ? { seconds: e.seconds, floor: notStartedSeconds(e), atMs: now() } : undefined;
    }
    return fit && Math.max(fit.floor, fit.seconds - (now() - fit.atMs) / 1000);
  };
}

export function notStartedSeconds(e: Estimate): number {
  const trials = e.seconds - (e.setup?.seconds ?? 0);
  if (e.setup) return trials;
  return e.remaining > 0 ? (trials * (e.remaining - 1)) / e.remaining : 0;
}

export async function withSession<C extends object, T>(
  options: SessionOptions,
  work: (session: ExperimentSession<C>) => Promise<T>,
): Promise<T> {
  const own = options.control.signal === undefined;
  const signal = options.control.signal ?? interruptSignal();
  stallBoundFromEnv();
  try {
    const session = await RunSession.open<C>(options, signal);
    try {
      return await session.run(work);
    } finally {
      await session.close();
    }
  } finally {
    if (own) endInterruptible(signal);
  }
}

/** Stored trials count as done from the first line, or a long reload would say 0 of the plan. */
export function shownDone(done: number, total: number, stored: number): number {
  return total > 1 ? Math.max(done, Math.min(stored, total)) : done;
}

/** `say` repeats the last line's counts with a new message. */
class SessionProgress implements ProgressReporter {
  planned = 0;
  private last: [number, number] = [0, 1];
  constructor(
    private readonly reporter: ProgressReporter,
    private readonly stored: number,
  ) {}
  // Arrow properties: callers pass them on as callbacks (`onProgress: progress.update`).
  readonly update = (done: number, total: number, message: string): void => {
    if (total > 1) this.planned = total;
    this.last = [shownDone(done, total, this.stored), total];
    this.reporter.update(...this.last, message);
  };
  readonly finish = (message: string): void => this.reporter.finish(message);
  readonly say = (message: string): void => this.reporter.update(...this.last, message);
}

/** One experiment run's state: `open` before the work, `run` under the stall watchdog, `close` stops the servers. */
class RunSession<C extends object> implements ExperimentSession<C> {
  private extras: object = {};
  private refused = false;
  /** The quietness probe and the settings are read from the first. */
  private postgresSeen: boolean;
  private readonly monitor = new HostMonitor();

  private constructor(
    private readonly options: SessionOptions,
    readonly signal: AbortSignal,
    readonly store: RunStore<C>,
    readonly progress: SessionProgress,
    readonly servers: ServerSet,
    readonly notes: string[],
    readonly metadata: RunMetadata,
    /** What the metadata holds and later servers add to: the same objects as in `metadata`. */
    private readonly live: {
      readonly quietness: Quietness;
      readonly serverSettings: Record<string, Record<string, string>>;
      readonly descriptions: ServerDescription[];
    },
  ) {
    this.postgresSeen = [...servers.byEngine.values()].some((s) => ENGINE_FACTS[s.engine].postgresCatalog);
  }

  static async open<C extends object>(options: SessionOptions, signal: AbortSignal): Promise<RunSession<C>> {
    if (listRecords().some((r) => r.resource.type === "docker-container"))
      await import("../targets/docker/docker-client");
    // Containers an unreachable engine kept earlier are removed now, as the reaper does for dead owners.
    if (ownRecords().some((r) => r.resource.type === "docker-container")) {
      const { retryAbandonedStops } = await import("../targets/docker/docker-target");
      await retryAbandonedStops();
    }
    const reaped = await reapOrphans();
    // Servers that will be this process's children: "before" is read while they start, their work left out; others
    // (a container, an external server) would count as other work, so there a second of the host before any start.
    const ownTree = options.specs.every((s) => plannedTargetKind(s.engine, options.target) === "embedded");
    const opened = openWindow(ownTree);
    const idleBefore = ownTree ? undefined : await sampleHost(1000);
    const { notebook, params, control } = options;
    const store = RunStore.open<C>({ notebook, params, resumeId: control.resumeId });
    const reporter = progressReporter(options.title, modelLeft(options, store));
    const progress = new SessionProgress(reporter, finishedKeys(store).size);
    // Before any server starts, so a reader can stop now rather than hours in.
    const estimate = options.estimate?.(finishedKeys(store));
    const eta = estimate ? etaText(estimate, store.runId) : undefined;
    const probes = { cpuProbeSeconds: cpuProbeSeconds(), writeProbeSeconds: writeProbeSeconds() ?? null };
    const said = [eta ? `ETA: ${eta}` : "", options.prospect ?? ""].filter(Boolean).join(" · ");
    progress.update(0, 1, said ? `${said} · starting servers…` : "starting servers…");
    const specs = options.specs.map((spec) => ({ ...spec, runId: store.runId }));
    const onProgress = (m: string) => progress.update(0, 1, m);
    const servers = await startServers(specs, { target: options.target, ...limitsOf(options), onProgress });
    try {
      const reapedNote = reaped.length ? [`removed ${reaped.length} resource(s) left by an earlier, dead run`] : [];
      const notes = [...servers.notes, ...reapedNote];
      const serverSettings = await settingsOf(servers, notes);
      const descriptions = servers.all().map((server) => server.description);
      const metadata: RunMetadata = {
        runId: store.runId,
        notebook,
        profile: control.profile ?? "custom",
        startedAt: new Date().toISOString(),
        host: hostInfo(),
        gitCommit: gitCommit(),
        servers: descriptions,
        params,
        unavailable: Object.fromEntries(servers.unavailable),
        notes,
        ...(eta ? { eta } : {}),
        probes,
        ...(options.prospect ? { prospect: options.prospect } : {}),
        serverSettings,
        owner: { pid: process.pid, host: os.hostname() },
        // A resumed run's earlier parts and one-off facts (a load its ETA reads) are kept, not overwritten.
        ...(store.earlierParts.length ? { earlierParts: store.earlierParts } : {}),
      };
      const selectOneBefore = await selectOneJitter(servers);
      const inTree = servers.all().every((server) => server.description.kind === "embedded");
      const before = idleBefore ?? (await closeWindow(inTree ? opened : { ...opened, own: undefined }, 1000));
      const quietness: Quietness = { cpus: os.cpus().length, before, selectOneBefore };
      metadata.quietness = quietness;
      store.writeMetadata(metadata);
      const live = { quietness, serverSettings, descriptions };
      return new RunSession<C>(options, signal, store, progress, servers, notes, metadata, live);
    } catch (error) {
      await servers.stopAll();
      throw error;
    }
  }

  readonly writeMetadata = (extra?: object): void => {
    this.extras = { ...this.extras, ...extra };
    this.store.writeMetadata({ ...this.metadata, ...this.extras });
  };

  readonly startServer = async (spec: ServerSpec, place: ServerPlace = {}): Promise<StartedServer> => {
    const decision =
      place.endpoint !== undefined
        ? { kind: "docker" as const, reason: "on the engine the experiment's parameters name" }
        : place.target !== undefined
          ? { kind: place.target, reason: "the experiment needs what only this target gives" }
          : await decideTarget(spec.engine, this.options.target);
    const where = { ...limitsOf(this.options), endpoint: place.endpoint, baseDir: place.baseDir };
    const started = { ...spec, runId: this.store.runId };
    const { server, notes } = await startOn(started, decision, { ...where, onProgress: (m) => this.progress.say(m) });
    this.notes.push(...notes);
    this.servers.add(spec.name ?? spec.engine, server);
    this.live.descriptions.push(server.description);
    // The first PostgreSQL server of a session that started none up front: what the up-front ones give.
    if (ENGINE_FACTS[server.engine].postgresCatalog && !this.postgresSeen) {
      this.postgresSeen = true;
      this.live.quietness.selectOneBefore = await selectOneJitterOn(server.connection);
      Object.assign(this.live.serverSettings, await settingsOf(this.servers, this.notes));
    }
    this.writeMetadata();
    return server;
  };

  readonly adopt = <S extends StartedServer>(server: S): S => {
    this.servers.add(server.id, server, { watched: false });
    this.live.descriptions.push(server.description);
    this.writeMetadata();
    return server;
  };

  readonly stopServer = (server: StartedServer): Promise<void> => this.servers.stop(server);

  async run<T>(work: (session: ExperimentSession<C>) => Promise<T>): Promise<T> {
    let outcome: RunMetadata["outcome"] = "failed";
    // On SIGTERM the process can exit before the trial's own error reaches the finally below.
    const onAbort = () => this.recordOutcome("interrupted");
    this.signal.addEventListener("abort", onAbort, { once: true });
    try {
      // The watchdog holds the ServerSet's watched view, which follows startServer/stopServer.
      const watchdog = new TrialWatchdog({ servers: this.servers.byEngine, say: this.progress.say });
      const result = await withWatchdog(watchdog, () => work(this));
      this.signal.throwIfAborted();
      outcome = "finished";
      const during = this.monitor.stop(this.live.descriptions.every((d) => d.kind === "embedded"));
      this.metadata.quietness = { ...this.live.quietness, during, selectOneAfter: await selectOneJitter(this.servers) };
      this.writeMetadata();
      return result;
    } catch (error) {
      if (!this.signal.aborted && isInputError(error)) {
        outcome = "refused";
        this.refused = true;
        throw error;
      }
      if (!this.signal.aborted) {
        const explained = await explainRunError(this.servers.byEngine, error);
        if (isDockerHostLoss(explained) && explained instanceof Error)
          extendMessage(explained, `. ${resumeHint(this.store, this.progress.planned)}`);
        throw explained;
      }
      outcome = "interrupted";
      // Whatever the workload threw on its way out, the cause is the Stop.
      const signal = this.signal.reason instanceof InterruptedError ? this.signal.reason.signal : undefined;
      const message = interruptedMessage(this.store, this.progress.planned, signal);
      this.progress.finish(message);
      throw new InterruptedError(message, { cause: error });
    } finally {
      this.signal.removeEventListener("abort", onAbort);
      this.recordOutcome(outcome);
    }
  }

  /** A failure here must not hide the run's own error: without finishedAt the run reads as "stopped". */
  private recordOutcome(outcome: RunMetadata["outcome"]): void {
    try {
      this.store.updateMetadata({ finishedAt: new Date().toISOString(), outcome, ...linkTraffic(this.servers) });
    } catch (error) {
      ignored("session: record the run's outcome in metadata.json")(error);
    }
  }

  async close(): Promise<void> {
    this.monitor.stop();
    await this.servers.stopAll();
    // Refused input leaves nothing to look at or resume, so no results folder; a resumed run's parts are kept.
    if (this.refused && this.store.trials().length === 0 && this.store.earlierParts.length === 0)
      fs.rmSync(this.store.directory, { recursive: true, force: true });
  }
}

const limitsOf = ({ cpus, memoryGiB }: SessionOptions): { cpus?: number; memoryBytes?: number } => ({
  cpus,
  memoryBytes: memoryGiB === undefined ? undefined : memoryGiB * 2 ** 30,
});

function linkTraffic(servers: StartedServers): { linkTraffic?: Record<string, LinkTraffic> } {
  const traffic = [...servers.byEngine].flatMap(([engine, server]) => {
    const t = server.linkTraffic?.();
    return t ? [[engine, t] as const] : [];
  });
  return traffic.length ? { linkTraffic: Object.fromEntries(traffic) } : {};
}

/** 300 × SELECT 1 on a fresh connection after 30 to warm up: the jitter of one round trip. */
async function selectOneJitter(servers: StartedServers): Promise<RttJitter | undefined> {
  const pg = [...servers.byEngine.values()].find((s) => ENGINE_FACTS[s.engine].postgresCatalog);
  return pg ? selectOneJitterOn(pg.connection) : undefined;
}

async function selectOneJitterOn(connection: ConnectionInfo): Promise<RttJitter | undefined> {
  try {
    const client = await connect(connection);
    try {
      const probe = selectOneProbe(client);
      await probe(30);
      return rttJitter(await probe(300));
    } finally {
      await client.end();
    }
  } catch {
    return undefined;
  }
}

/** For lib/compare; best effort: a server that refuses the query costs a note, not the run. */
async function settingsOf(servers: StartedServers, notes: string[]): Promise<Record<string, Record<string, string>>> {
  const serverSettings: Record<string, Record<string, string>> = {};
  for (const [engine, server] of servers.byEngine) {
    if (!ENGINE_FACTS[server.engine].postgresCatalog) continue;
    try {
      serverSettings[engine] = await nonDefaultSettings(server.connection);
    } catch (error) {
      const message = errorMessage(error);
      notes.push(`could not read ${engine}'s settings: ${redactText(message)}`);
    }
  }
  return serverSettings;
}
