/**
 * What every experiment run does around its own work: reap what dead runs left, open the results
 * store, show progress, start the servers, record metadata, listen for interrupts — and stop the
 * servers afterwards, whatever happens. Servers are started up front (`specs`) or, by an experiment
 * that starts them in phases (05: a server, then a primary and its standbys), later through the
 * session (`startServer`, `adopt`); either way the session records, watches and stops them.
 */
import fs from "node:fs";
import os from "node:os";
import { nonDefaultSettings } from "../engines/postgres/server-settings";
import { redactText } from "../targets/uri";
import { ENGINE_FACTS } from "../targets/engines";
import { progressReporter, type ProgressReporter } from "../display/progress";
import { gitCommit, hostInfo, type RunMetadata } from "../results/metadata";
import { RunStore } from "../results/run-store";
import { endInterruptible, InterruptedError, interruptSignal } from "../runtime/interrupt";
import { extendMessage } from "../runtime/error-message";
import { isInputError } from "../runtime/input-error";
import { reapOrphans } from "../runtime/reaper";
import { listRecords, ownRecords } from "../runtime/resource-registry";
import { decideTarget, type TargetChoice } from "../targets/select";
import type { DockerEndpoint } from "../targets/docker/endpoint";
import type {
  ConnectionInfo,
  Engine,
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
import { HostMonitor, rttJitter, sampleHost, type Quietness, type RttJitter } from "../results/quietness";

export interface RunControl {
  /** Resume this run id: finished trials are skipped; parameters must match. */
  readonly resumeId?: string;
  readonly profile?: string;
  /** Defaults to a signal aborted by the next SIGINT (a Jupyter interrupt). */
  readonly signal?: AbortSignal;
  /** Go on after a failed trial instead of stopping the run. */
  readonly continueOnError?: boolean;
}

export interface SessionOptions {
  /** Folder-style name, e.g. "03-over-indexing". */
  readonly notebook: string;
  /** Title of the live progress bar. */
  readonly title: string;
  readonly params: object;
  readonly control: RunControl;
  /** Servers started before the work; may be empty when the work starts its own (`startServer`). */
  readonly specs: readonly ServerSpec[];
  readonly target: TargetChoice;
  /** Limits per server (docker); without them the target's defaults apply. */
  readonly cpus?: number;
  readonly memoryGiB?: number;
  /** Engines whose absence is reported rather than fatal; unset, the ones ENGINE_FACTS marks optional. */
  readonly optional?: readonly Engine[];
  /**
   * What this run can decide, said with the ETA before any server starts: the notebook's
   * `planClaims` line ("this profile on this machine can decide 4 of 5 claims; not: …").
   */
  readonly prospect?: string;
  /** The ETA of the trials not in `done` (the notebook's model, `estimateRun`); unset, no ETA line. */
  readonly estimate?: (done: ReadonlySet<string>) => Estimate | undefined;
}

/** Where a server started during the work runs, when not on the session's target. */
export interface ServerPlace {
  /**
   * This kind instead of the session's choice, for a capability only it gives (05's quorum primary:
   * standbys are copies of its data directory, which only the embedded target gives access to).
   */
  readonly target?: TargetKind;
  /** A Docker engine the user named for this server (05's `hosts`); implies the docker target. */
  readonly endpoint?: DockerEndpoint;
  /** Embedded PostgreSQL: parent of its directory (05's quorum cluster in /dev/shm). */
  readonly baseDir?: string;
}

export interface ExperimentSession<C extends object> {
  readonly store: RunStore<C>;
  readonly progress: ProgressReporter;
  /**
   * The up-front servers and those started since (`startServer`, `adopt`), by name; `servers.byEngine`
   * is per engine the latest watched one still running.
   */
  readonly servers: ServerSet;
  readonly signal: AbortSignal;
  /** Notes for the report; push to it, it is part of `metadata`. */
  readonly notes: string[];
  readonly metadata: RunMetadata;
  /** Writes metadata.json (again), with experiment-specific extras. A property: work functions destructure it. */
  readonly writeMetadata: (extra?: object) => void;
  /**
   * Starts a server during the work, on the session's target or where `place` says. The session
   * then treats it as an up-front one: described in metadata.json, the server of its engine for the
   * stall watchdog, the quietness probe's server if it is the first PostgreSQL one, and stopped when
   * the session ends (see `adopt` for the order), unless `stopServer` stopped it before.
   */
  startServer(spec: ServerSpec, place?: ServerPlace): Promise<StartedServer>;
  /**
   * Takes over a server that another one started (a primary's standbys): described in metadata.json
   * and stopped when the session ends. Servers stop in the reverse order they came, so a primary's
   * standbys stop before it. Not the watchdog's server: the trials run on the primary.
   */
  adopt<S extends StartedServer>(server: S): S;
  /** Stops one of the session's servers now (a phase's server the next phase does not use). */
  stopServer(server: StartedServer): Promise<void>;
}

/** What a Stop leaves, for the cell: how many trials are on disk, where, and how to go on. */
export function interruptedMessage(
  store: { readonly runId: string; readonly directory: string; trials(): readonly unknown[] },
  planned: number,
  signal?: string,
): string {
  const kept = store.trials().length;
  const of = planned > 0 ? ` of ${planned}` : "";
  return (
    `interrupted${signal ? ` (${signal})` : ""}: ${kept}${of} trials kept in ${store.directory}; its servers were stopped. ` +
    `Resume with the same parameters and { resumeId: "${store.runId}" } in the run's options.`
  );
}

/** The keys of the run's finished trials: what an estimate leaves out. */
function finishedKeys(store: { trials(): readonly { readonly key: string; readonly status: string }[] }): Set<string> {
  return new Set(
    store
      .trials()
      .filter((t) => t.status === "ok")
      .map((t) => t.key),
  );
}

/**
 * The seconds left by the notebook's ETA model during the run: refitted whenever a trial has
 * finished since the last call (the run's own trials are stored runs too, so a 100M-row trial's
 * time corrects what the default runs alone predicted) or the plan has grown (an adaptive round's
 * trials join the estimate), and counted down between fits. Without the countdown, the line said
 * "about 2 h 36 min left" for the whole 36 min of 03's load and template at the seed's scale.
 * The countdown stops at what the trials not yet started need by the model (all of them while the
 * setup runs), so a phase that overruns its estimate does not take the later trials' time with it.
 */
export function modelLeft(
  options: Pick<SessionOptions, "estimate">,
  store: { trials(): readonly { readonly key: string; readonly status: string }[] },
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

/** An estimate's time for the trials not started: all of them during the setup, else all but the running one. */
export function notStartedSeconds(e: Estimate): number {
  const trials = e.seconds - (e.setup?.seconds ?? 0);
  if (e.setup) return trials;
  return e.remaining > 0 ? (trials * (e.remaining - 1)) / e.remaining : 0;
}

/** The ETA line of this run's remaining trials, or undefined for a notebook the estimate does not model. */
function runEta(
  options: SessionOptions,
  store: { readonly runId: string; trials(): readonly { readonly key: string; readonly status: string }[] },
): string | undefined {
  const estimate = options.estimate?.(finishedKeys(store));
  return estimate ? etaText(estimate, store.runId) : undefined;
}

export async function withSession<C extends object, T>(
  options: SessionOptions,
  work: (session: ExperimentSession<C>) => Promise<T>,
): Promise<T> {
  const own = options.control.signal === undefined;
  const signal = options.control.signal ?? interruptSignal();
  stallBoundFromEnv(); // a bad DBLAB_STALL_SECONDS is refused before anything starts
  try {
    return await runSession(options, signal, work);
  } finally {
    if (own) endInterruptible(signal);
  }
}

async function runSession<C extends object, T>(
  options: SessionOptions,
  signal: AbortSignal,
  work: (session: ExperimentSession<C>) => Promise<T>,
): Promise<T> {
  const session = await RunSession.open<C>(options, signal);
  try {
    return await session.run(work);
  } finally {
    await session.close();
  }
}

/**
 * The count a progress line shows: a resumed run's stored trials are done from its first line. The
 * setup's lines say 0 of the plan (the trial loop counts the stored ones only once it starts), and
 * a resumed 03 at the seed's scale said "0/25" through its 36 min of reload with 15 rounds kept.
 * A plan of one is the setup's own marker (0/1), left as it is.
 */
export function shownDone(done: number, total: number, stored: number): number {
  return total > 1 ? Math.max(done, Math.min(stored, total)) : done;
}

/** The session's progress line: the reporter, the planned count it last saw, and `say` at that count. */
class SessionProgress implements ProgressReporter {
  /** The plan's size as the work last reported it (for the interrupt's and the engine loss's message). */
  planned = 0;
  private readonly reporter: ReturnType<typeof lastLineKept>;
  constructor(
    title: string,
    left?: (done: number, total: number) => number | undefined,
    /** The trials an earlier part of the run finished (read once: the trial loop counts its own). */
    private readonly stored = 0,
  ) {
    this.reporter = lastLineKept(progressReporter(title, left));
  }
  // Arrow properties: callers pass them on as callbacks (`onProgress: progress.update`).
  readonly update = (done: number, total: number, message: string): void => {
    if (total > 1) this.planned = total;
    this.reporter.update(shownDone(done, total, this.stored), total, message);
  };
  readonly finish = (message: string): void => this.reporter.finish(message);
  readonly say = (message: string): void => this.reporter.say(message);
}

/**
 * One experiment run's state, explicit: its store, progress line, servers (a ServerSet: named, in
 * the order they came), notes and metadata. `open` does what comes before the work (reap, sample
 * the host, open the store, start the up-front servers, write metadata.json), `run` runs the work
 * under the stall watchdog and turns its failure into the run's error, `close` stops the servers.
 */
class RunSession<C extends object> implements ExperimentSession<C> {
  private extras: object = {};
  /** The run's input was refused (an InputError): not resumable. */
  private refused = false;
  /** A PostgreSQL server has been seen: the quietness probe and the settings are read from the first. */
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
    private readonly quietness: Quietness,
    private readonly comparison: Awaited<ReturnType<typeof comparisonFields>>,
    /** metadata.servers: every server the run had, stopped ones included. */
    private readonly descriptions: ServerDescription[],
  ) {
    this.postgresSeen = [...servers.byEngine.values()].some((s) => ENGINE_FACTS[s.engine].postgresCatalog);
  }

  static async open<C extends object>(options: SessionOptions, signal: AbortSignal): Promise<RunSession<C>> {
    // The reaper removes containers through the Docker layer, loaded only when a record needs it.
    if (listRecords().some((r) => r.resource.type === "docker-container"))
      await import("../targets/docker/docker-client");
    // Containers this process could not remove earlier (their engine was unreachable then): a kernel
    // that resumes a run after a dropped engine removes them now, as the reaper does for dead owners.
    if (ownRecords().some((r) => r.resource.type === "docker-container")) {
      const { retryAbandonedStops } = await import("../targets/docker/docker-target");
      await retryAbandonedStops();
    }
    const reaped = await reapOrphans();
    // The host's load before any server of ours starts: what else is running on this machine.
    const before = await sampleHost(1000);
    const store = RunStore.open<C>({
      notebook: options.notebook,
      params: options.params,
      resumeId: options.control.resumeId,
    });
    const progress = new SessionProgress(options.title, modelLeft(options, store), finishedKeys(store).size);
    // Before any server starts: how long the plan takes here, so a reader can stop now rather than
    // hours in. The first progress line and the run header say it.
    const eta = runEta(options, store);
    // Read while no server runs (once a process: the ETA's own reading when it had to probe).
    const probes = { cpuProbeSeconds: cpuProbeSeconds(), writeProbeSeconds: writeProbeSeconds() ?? null };
    const said = [eta ? `ETA: ${eta}` : "", options.prospect ?? ""].filter(Boolean).join(" · ");
    progress.update(0, 1, said ? `${said} · starting servers…` : "starting servers…");
    // The run's id reaches every target: a shared server's databases and a container carry it in their names.
    const servers = await startServers(
      options.specs.map((spec) => ({ ...spec, runId: store.runId })),
      {
        target: options.target,
        ...limitsOf(options),
        // Unset: the engines ENGINE_FACTS marks optional (servers.ts).
        ...(options.optional ? { optional: options.optional } : {}),
        onProgress: (m) => progress.update(0, 1, m),
      },
    );
    try {
      const notes = [
        ...servers.notes,
        ...(reaped.length ? [`removed ${reaped.length} resource(s) left by an earlier, dead run`] : []),
      ];
      const comparison = await comparisonFields(servers, notes);
      const descriptions = servers.all().map((server) => server.description);
      const metadata: RunMetadata = {
        runId: store.runId,
        notebook: options.notebook,
        profile: options.control.profile ?? "custom",
        startedAt: new Date().toISOString(),
        host: hostInfo(),
        gitCommit: gitCommit(),
        servers: descriptions,
        params: options.params,
        unavailable: Object.fromEntries(servers.unavailable),
        notes,
        ...(eta ? { eta } : {}),
        probes,
        ...(options.prospect ? { prospect: options.prospect } : {}),
        ...comparison,
        // A resumed run's earlier parts: their start, ETA and outcome, and the experiment's one-off
        // facts (03's 36-minute load at the seed's scale, which its ETA reads), kept, not overwritten.
        ...(store.earlierParts.length ? { earlierParts: store.earlierParts } : {}),
      };
      const quietness: Quietness = { cpus: os.cpus().length, before, selectOneBefore: await selectOneJitter(servers) };
      metadata.quietness = quietness;
      store.writeMetadata(metadata);
      return new RunSession<C>(
        options,
        signal,
        store,
        progress,
        servers,
        notes,
        metadata,
        quietness,
        comparison,
        descriptions,
      );
    } catch (error) {
      await servers.stopAll();
      throw error;
    }
  }

  // Arrow properties, not methods: experiments destructure them from the session (`{ writeMetadata }`).
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
    const { server, notes } = await startOn({ ...spec, runId: this.store.runId }, decision, {
      ...limitsOf(this.options),
      endpoint: place.endpoint,
      baseDir: place.baseDir,
      onProgress: (m) => this.progress.say(m),
    });
    this.notes.push(...notes);
    this.servers.add(spec.name ?? spec.engine, server);
    this.descriptions.push(server.description);
    // The first PostgreSQL server of a session that started none up front: what the up-front ones give.
    if (ENGINE_FACTS[server.engine].postgresCatalog && !this.postgresSeen) {
      this.postgresSeen = true;
      this.quietness.selectOneBefore = await selectOneJitterOn(server.connection);
      Object.assign(this.comparison.serverSettings, (await comparisonFields(this.servers, this.notes)).serverSettings);
    }
    this.writeMetadata();
    return server;
  };

  readonly adopt = <S extends StartedServer>(server: S): S => {
    this.servers.add(server.id, server, { watched: false });
    this.descriptions.push(server.description);
    this.writeMetadata();
    return server;
  };

  readonly stopServer = (server: StartedServer): Promise<void> => this.servers.stop(server);

  async run<T>(work: (session: ExperimentSession<C>) => Promise<T>): Promise<T> {
    let outcome: RunMetadata["outcome"] = "failed";
    // Written the moment the run is aborted: on SIGTERM the process exits once its servers are
    // stopped, which can come before the trial's own error has made its way up to the finally below.
    const onAbort = () => this.recordOutcome("interrupted");
    this.signal.addEventListener("abort", onAbort, { once: true });
    try {
      // Every trial below runs under the stall watchdog (lib/workloads/watchdog.ts), which says so in
      // the progress line. It holds the ServerSet's watched view, which follows startServer/stopServer.
      const watchdog = new TrialWatchdog({
        servers: this.servers.byEngine,
        say: (message) => this.progress.say(message),
      });
      const result = await withWatchdog(watchdog, () => work(this));
      // A plan that just stops looping when aborted: a Stop is still a Stop for the cell.
      this.signal.throwIfAborted();
      outcome = "finished";
      this.metadata.quietness = {
        ...this.quietness,
        during: this.monitor.stop(),
        selectOneAfter: await selectOneJitter(this.servers),
      };
      this.writeMetadata();
      return result;
    } catch (error) {
      if (!this.signal.aborted && isInputError(error)) {
        outcome = "refused";
        this.refused = true;
        throw error;
      }
      if (!this.signal.aborted) throw await this.explain(error);
      outcome = "interrupted";
      // Whatever the workload threw on its way out (an aborted pgbench, a cancelled statement), the
      // cause is the Stop: say so, and what was kept. The servers are stopped before the cell sees it.
      const message = interruptedMessage(
        this.store,
        this.progress.planned,
        this.signal.reason instanceof InterruptedError ? this.signal.reason.signal : undefined,
      );
      this.progress.finish(message);
      throw new InterruptedError(message, { cause: error });
    } finally {
      this.signal.removeEventListener("abort", onAbort);
      this.recordOutcome(outcome);
    }
  }

  /**
   * Merged into what is on disk: experiments add their own fields with store.writeMetadata.
   * A failure here must not hide the run's own error: without finishedAt the run reads as "stopped".
   */
  private recordOutcome(outcome: RunMetadata["outcome"]): void {
    try {
      this.store.updateMetadata({ finishedAt: new Date().toISOString(), outcome, ...linkTraffic(this.servers) });
    } catch (error) {
      ignored("session: record the run's outcome in metadata.json")(error);
    }
  }

  /** A lost engine is not the end of the run: the error says which, what was kept and how to go on. */
  private async explain(error: unknown): Promise<unknown> {
    const explained = await explainRunError(this.servers.byEngine, error);
    if (isDockerHostLoss(explained) && explained instanceof Error) {
      extendMessage(explained, `. ${resumeHint(this.store, this.progress.planned)}`);
    }
    return explained;
  }

  async close(): Promise<void> {
    this.monitor.stop();
    await this.servers.stopAll();
    // A run its input refused before any trial ran holds nothing to look at or resume: it leaves
    // no results folder (its error says what to fix). A resumed run's earlier parts are kept.
    if (this.refused && this.store.trials().length === 0 && this.store.earlierParts.length === 0)
      fs.rmSync(this.store.directory, { recursive: true, force: true });
  }
}

function limitsOf(options: SessionOptions): { cpus?: number; memoryBytes?: number } {
  return {
    cpus: options.cpus,
    memoryBytes: options.memoryGiB === undefined ? undefined : options.memoryGiB * 2 ** 30,
  };
}

/** What a run cut short by a lost engine kept, and how to resume it once the engine answers. */
export function resumeHint(
  store: { readonly runId: string; readonly directory: string; trials(): readonly unknown[] },
  planned: number,
): string {
  const kept = store.trials().filter((t) => (t as { status?: unknown }).status !== "failed").length;
  const of = planned > 0 ? ` of ${planned}` : "";
  return (
    `${kept}${of} trials finished and are kept in ${store.directory}. Once the engine answers again, resume with ` +
    `the same parameters and { resumeId: "${store.runId}" } in the run's options; its container is removed ` +
    "then (or by `npm run clean`: its record is kept)"
  );
}

/** Bytes over each remote engine's link (ssh:// only), for metadata.json. */
function linkTraffic(servers: StartedServers): { linkTraffic?: Record<string, LinkTraffic> } {
  const out: Record<string, LinkTraffic> = {};
  for (const [engine, server] of servers.byEngine) {
    const traffic = server.linkTraffic?.();
    if (traffic) out[engine] = traffic;
  }
  return Object.keys(out).length ? { linkTraffic: out } : {};
}

/**
 * 300 × SELECT 1 on a fresh connection to the run's PostgreSQL server (after 30 to warm up): the
 * jitter of one round trip, before and after the run. ~50 ms; undefined without PostgreSQL.
 */
async function selectOneJitter(servers: StartedServers): Promise<RttJitter | undefined> {
  const pg = [...servers.byEngine.values()].find((s) => ENGINE_FACTS[s.engine].postgresCatalog);
  return pg ? selectOneJitterOn(pg.connection) : undefined;
}

/** The same on one server's connection (05, which starts its servers itself). */
export async function selectOneJitterOn(connection: ConnectionInfo): Promise<RttJitter | undefined> {
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
    return undefined; // quietness is a report figure: a server that refuses it must not fail the run
  }
}

/**
 * What lib/compare needs to tell runs apart and to tell a finished run from one in progress: the
 * servers' non-default settings as they report them, and the process that owns the run. Reading the
 * settings is best effort: a server that refuses the query costs a note, not the run.
 */
async function comparisonFields(
  servers: StartedServers,
  notes: string[],
): Promise<{ serverSettings: Record<string, Record<string, string>>; owner: NonNullable<RunMetadata["owner"]> }> {
  const serverSettings: Record<string, Record<string, string>> = {};
  for (const [engine, server] of servers.byEngine) {
    if (!ENGINE_FACTS[server.engine].postgresCatalog) continue;
    try {
      serverSettings[engine] = await nonDefaultSettings(server.connection);
    } catch (error) {
      notes.push(
        `could not read ${engine}'s settings: ${redactText(error instanceof Error ? error.message : String(error))}`,
      );
    }
  }
  return { serverSettings, owner: { pid: process.pid, host: os.hostname() } };
}

/** A progress reporter that can also show a line (the watchdog's) at the last count it was given. */
function lastLineKept(inner: ProgressReporter): ProgressReporter & { say(message: string): void } {
  let done = 0;
  let total = 1;
  return {
    update(d, t, message) {
      [done, total] = [d, t];
      inner.update(d, t, message);
    },
    finish: (message) => inner.finish(message),
    say: (message) => inner.update(done, total, message),
  };
}
