/**
 * The run's phases: 1, one server behind emulated client links; 2, a primary whose commits wait for
 * one of two standbys, then the synchronous_commit sweep. The session stops what is left.
 */
import fs from "node:fs";
import { mean } from "simple-statistics";
import type { Client } from "pg";
import { connect } from "../../../engines/postgres/connect";
import { releaseSynchronousStandbys, requireSynchronousStandbys } from "../../../engines/postgres/synchronous-standbys";
import { createEmulator, type NetworkEmulator } from "../../../network/emulator";
import type { DelayLink } from "../../../network/types";
import { ignored } from "../../../runtime/debug";
import { rotated } from "../../../stats/order";
import { decideTarget } from "../../../targets/select";
import {
  canReplicate,
  type ConnectionInfo,
  type ReplicationPrimary,
  type ServerSpec,
  type TargetKind,
} from "../../../targets/types";
import type { StandbySpec, StandbyOptions, StartedServer } from "../../../targets/types";
import { redactText } from "../../../targets/uri";
import type { RunStore } from "../../../results/run-store";
import type { DockerEndpoint } from "../../../targets/docker/endpoint";
import { hostEndpoint, hostKey, type RoundTripsParams } from "../params";
import { resetTable } from "./dataset";
import { ENVIRONMENT_INFO, QUORUM, STANDBY_NAMES } from "./environments";
import { CalibratedLink, measureBaseline, STANDBY_PURPOSE, type CalibrationRecord } from "./links";
import { caseTrial, commitLevelTrial, timedTrial } from "./trial-runner";
import type { PlannedRoundTrip, Session, Slot } from "./trial-runner";
import { SetupClock } from "../../../workloads/timed";
import { runTrials } from "../../../workloads/trials";
import type { EnvironmentKey, RoundTripCondition, RoundTripTrial } from "./trials";

/** What a run carries besides its trials, as extras.json holds it. */
export type PhasesResult = Awaited<ReturnType<typeof runPhases>>;

/** What the phases ask of the experiment's session: they start and stop servers as they go. */
export interface PhaseSession {
  readonly store: Pick<RunStore<RoundTripCondition>, "finishedKeys" | "append" | "directory">;
  readonly progress: { update(done: number, total: number, message: string): void; finish(message: string): void };
  readonly signal: AbortSignal;
  readonly notes: string[];
  readonly writeMetadata: () => void;
  startServer(
    spec: ServerSpec,
    place?: { readonly target?: TargetKind; readonly endpoint?: DockerEndpoint; readonly baseDir?: string },
  ): Promise<StartedServer>;
  adopt<S extends StartedServer>(server: S): S;
  stopServer(server: StartedServer): Promise<void>;
}

/** WAL sync timing on (the seed read wal_sync_time), WAL kept for standbys. */
const serverSettings = (netemAddresses: boolean) => ({
  track_wal_io_timing: "on",
  track_io_timing: "on",
  wal_keep_size: "256MB",
  // netem tells links apart by loopback address: the primary listens on one per standby link.
  ...(netemAddresses ? { listen_addresses: "127.0.0.1,127.0.0.2,127.0.0.3" } : {}),
});

/** Phase 1's server; an external one's pre-flight checks CREATEDB, CHECKPOINT and two sessions (no extension). */
export const phaseOneSpec = (): ServerSpec => ({
  engine: "postgresql",
  name: "05-pg",
  settings: serverSettings(false),
  uses: { notebook: "05 round trips", clients: 2 },
});

const STANDBY_ADDRESSES = ["127.0.0.2", "127.0.0.3"];
const closeAll = async (clients: (Client | undefined)[]) => {
  for (const c of clients) await c?.end().catch(ignored("round-trips: end a client"));
};

/** Linux /dev/shm, if writable (else the caller says so in the notes and uses the disk). */
function memoryDirectory(): string | undefined {
  try {
    fs.accessSync("/dev/shm", fs.constants.W_OK);
    return fs.statSync("/dev/shm").isDirectory() ? "/dev/shm" : undefined;
  } catch {
    return undefined;
  }
}

/** What runs where, decided before any server starts. */
export function planPhases(p: RoundTripsParams, asIs: boolean) {
  const sweep = p.sweepStandbyRttsMs.length > 0 && p.syncLevels.length > 0;
  const singles = p.environments.filter((e) => !ENVIRONMENT_INFO[e].quorum);
  const quorums = p.environments.filter((e) => ENVIRONMENT_INFO[e].quorum);
  const placed = (envs: readonly EnvironmentKey[], among: readonly EnvironmentKey[]) =>
    envs.flatMap((env) => {
      const host = p.hosts[hostKey(env)];
      return host !== undefined && among.includes(env) ? [{ env, host }] : [];
    });
  const hosted = placed(["same-az", "cross-az"], singles);
  if (asIs) {
    const emulated = p.environments.filter((e) => e !== "local");
    const reason = "an external server is measured as it is: no delays or standbys are emulated in front of it";
    const skipped = [
      ...(emulated.length ? [{ what: emulated.join(", "), reason }] : []),
      ...(sweep ? [{ what: "synchronous_commit sweep", reason: "it needs standbys the lab runs" }] : []),
    ];
    return { single: ["external" as EnvironmentKey], hosted, quorum: [], hostedQuorum: [], sweep: false, skipped };
  }
  const hostedQuorum = placed(["quorum-same-az", "quorum-cross-az"], quorums);
  return {
    single: singles.filter((e) => !hosted.some((h) => h.env === e)),
    hosted,
    quorum: quorums.filter((e) => !hostedQuorum.some((h) => h.env === e)),
    hostedQuorum,
    sweep,
    skipped: [],
  };
}

/**
 * The environments of one repeat, in the order their blocks run: every other repeat backwards, so the
 * blocks that meet at a repeat's end share an environment, whose link is then not set again.
 */
export const environmentOrder = <E>(envs: readonly E[], repeat: number): readonly E[] =>
  repeat % 2 ? envs : [...envs].reverse();

/** The sweep's standby round trips, the one the links are already at (if swept) first. */
export const sweepOrder = (rtts: readonly number[], at: number | undefined): readonly number[] => [
  ...rtts.filter((x) => x === at),
  ...rtts.filter((x) => x !== at),
];

/** QUORUM standbys of a primary and two sessions on it; `stop` undoes it all. */
class Standbys {
  servers: readonly StartedServer[] = [];
  admin?: Client;
  lagAdmin?: Client;

  constructor(
    private readonly session: PhaseSession,
    private readonly primary: ReplicationPrimary,
  ) {}

  async start(specs: readonly StandbySpec[], options?: StandbyOptions): Promise<{ admin: Client; lagAdmin: Client }> {
    this.servers = (await this.primary.replication.startStandbys(specs, options)).map((s) => this.session.adopt(s));
    // Connected only now: making the standbys restarted the primary.
    const admin = (this.admin = await connect(this.primary.connection));
    await requireSynchronousStandbys(admin, QUORUM, STANDBY_NAMES.length);
    const lagAdmin = (this.lagAdmin = await connect(this.primary.connection));
    return { admin, lagAdmin };
  }

  async stop(): Promise<void> {
    // No commit may wait for a standby that is going away.
    await releaseSynchronousStandbys(this.admin);
    await closeAll([this.lagAdmin, this.admin]);
    for (const s of this.servers) await this.session.stopServer(s).catch(ignored("round-trips: stop a standby"));
  }
}

class Phases {
  readonly calibrations: CalibrationRecord[] = [];
  /** Each server's direct SELECT 1 round trip, ms. */
  readonly baselines: Record<string, number> = {};
  readonly skipped: { readonly what: string; readonly reason: string }[] = [];
  /** Created once for the phase-1 server, and reused if that server becomes the primary. */
  clientLink?: DelayLink;
  network?: NetworkEmulator;
  done = 0;
  /** The untimed work since the last trial's record, by part: the next trial's `beforeSeconds`. */
  setup = new SetupClock<string>();
  /** The trials on disk when the run (re)started, read once: no block plans a trial this run recorded. */
  private readonly finished: Set<string>;

  constructor(
    readonly p: RoundTripsParams,
    readonly session: PhaseSession,
    private readonly continueOnError: boolean,
    private readonly total: number,
  ) {
    this.finished = session.store.finishedKeys();
  }

  say(message: string): void {
    this.session.progress.update(this.done, this.total, message);
  }

  skip(what: string, reason: string): void {
    this.skipped.push({ what, reason });
    this.session.notes.push(`not run here: ${what} — ${reason}`);
  }

  async emulator(): Promise<NetworkEmulator> {
    if (!this.network) {
      this.network = await createEmulator(this.p.network);
      this.session.notes.push(`links: ${this.network.reason}`);
      this.session.writeMetadata();
    }
    return this.network;
  }

  /** One block of trials: `items` rotated by repeat (recorded as `order`: drift does not always land on one). */
  block<X>(s: Session, items: readonly X[], repeat: number, trial: (x: X, at: Slot) => PlannedRoundTrip) {
    const { signal, store } = this.session;
    const plan = rotated(items, repeat - 1).map((x, order) => trial(x, { repeat, order, signal }));
    const took = () => {
      const taken = this.setup.record();
      this.setup = new SetupClock<string>();
      return Object.keys(taken).length ? taken : undefined;
    };
    return runTrials<RoundTripCondition, PlannedRoundTrip, RoundTripTrial>(plan, (t) => timedTrial(s, t, took()), {
      store: { finishedKeys: () => this.finished, append: (r) => store.append(r), directory: store.directory },
      signal,
      continueOnError: this.continueOnError,
      watch: (planned) => ({ engine: "postgresql", what: `running ${planned.key}`, group: planned.condition.kind }),
      // An error inside BEGIN … leaves the session in an aborted transaction: end it for the next case.
      afterFailure: async () => void (await s.bench.query("ROLLBACK")),
      // Before a block's first trial (no `last`), its trials already on disk (a resume) count as done.
      onProgress: ({ skipped, last }) => {
        this.done += last ? 1 : skipped;
        if (last) this.say(`${last.key}: ${last.seconds !== undefined ? `${last.seconds.toFixed(2)} s` : "failed"}`);
        else if (skipped) this.say(`${skipped} trial(s) already on disk`);
      },
    });
  }

  /** Each repeat's blocks, one per environment (its cases), on one server. */
  async environments(
    envs: readonly EnvironmentKey[],
    server: ConnectionInfo,
    { label, ...shared }: Pick<Session, "lagAdmin" | "standbyRttMs" | "real"> & { readonly label: string },
  ): Promise<void> {
    const { p } = this;
    const targetOf = (env: EnvironmentKey) => (shared.real ? null : ENVIRONMENT_INFO[env].clientTargetMs(p));
    const baseline = await this.setup.time("baseline", async () => {
      // A netem link delays direct connections to its address too: at 0 while measuring loopback.
      await this.clientLink?.setOneWayDelay(0);
      return measureBaseline(server, p.calibrationSamples);
    });
    this.baselines[label] = baseline;
    const linked = envs.some((e) => targetOf(e) !== null);
    if (linked)
      this.clientLink ??= await this.setup.time("link", async () =>
        (await this.emulator()).createLink({ name: "client", serverHost: server.host, serverPort: server.port }),
      );
    const clientLink = linked ? this.clientLink : undefined;
    const calibrated = clientLink && new CalibratedLink(clientLink, server, p.calibrationSamples);
    /** The client link at `env`'s target (none: direct, the link at 0 ms), and what the bench connects to. */
    const setLink = async (env: EnvironmentKey) => {
      const target = targetOf(env);
      if (target === null || !calibrated) {
        await this.setup.time("link", async () => clientLink?.setOneWayDelay(0));
        return { env, connection: server, clientRttMs: baseline, link: undefined };
      }
      this.say(`setting the client link to ${target} ms for ${env}…`);
      const cal = await this.setup.time("link", () => calibrated.calibrate(target, `${env} (${label})`));
      const link = cal.mode === "direct" ? undefined : clientLink;
      return { env, connection: calibrated.connectionFor(cal), clientRttMs: cal.achievedRttMs, link };
    };
    const admin = await this.setup.time("connect", () => connect(server));
    let set: Awaited<ReturnType<typeof setLink>> | undefined;
    try {
      for (let repeat = 1; repeat <= p.repeats; repeat++) {
        // The client link is set once per block (one environment's cases in one repeat): repeats
        // interleave the environments, so the claims' per-repeat pairs run close together.
        for (const env of environmentOrder(envs, repeat)) {
          if (set?.env !== env) set = await setLink(env);
          const { connection, clientRttMs, link } = set;
          const bench = await this.setup.time("connect", () => connect(connection));
          try {
            const session: Session = { ...shared, bench, admin, rows: p.rows, clientRttMs, link };
            await this.block(session, p.cases, repeat, (c, at) => caseTrial(session, at, env, c, p.statements));
          } finally {
            await closeAll([bench]);
          }
        }
      }
    } finally {
      await closeAll([admin]);
      if (calibrated) this.calibrations.push(...calibrated.records);
    }
  }

  /** A real server on a named host, measured, not emulated. */
  async hosted(env: EnvironmentKey, host: string): Promise<void> {
    this.say(`starting a server on ${host} for ${env}…`);
    const server = await this.session.startServer(
      { engine: "postgresql", name: `05-${env}`, settings: serverSettings(false) },
      { endpoint: hostEndpoint(`hosts.${hostKey(env)}`, host) },
    );
    try {
      const label = `${env} on ${server.network?.dockerHost ?? host}`;
      await this.environments([env], server.connection, { standbyRttMs: null, label, real: true });
      this.session.notes.push(
        `${env}: a real server on ${server.network?.dockerHost ?? host} (route ${server.network?.route}), ` +
          `SELECT 1 round trip ${this.baselines[label].toFixed(3)} ms measured, not emulated`,
      );
    } finally {
      await this.session.stopServer(server).catch(ignored("round-trips: stop a hosted server"));
    }
  }

  /**
   * Phase 2 on real hosts: the primary stays here (standbys copy its data directory, which only the
   * embedded target gives), its standbys on the named engine, reached over its SSH connection.
   */
  async hostedQuorum(primary: ReplicationPrimary, env: EnvironmentKey, host: string): Promise<void> {
    const on = hostEndpoint(`hosts.${hostKey(env)}`, host);
    const standbys = new Standbys(this.session, primary);
    try {
      this.say(`copying the primary's data directory into two standbys on ${host}…`);
      const { port: upstreamPort, host: upstreamHost } = primary.connection;
      const { lagAdmin } = await standbys.start(
        STANDBY_NAMES.map((name) => ({ name, upstreamHost, upstreamPort, on })),
      );
      const rtts: number[] = [];
      for (const s of standbys.servers) rtts.push(await measureBaseline(s.connection, this.p.calibrationSamples));
      const where = standbys.servers[0].network?.dockerHost ?? host;
      const label = `${env}: primary here, 2 standbys on ${where}`;
      await this.environments([env], primary.connection, { lagAdmin, standbyRttMs: mean(rtts), label, real: true });
      this.session.notes.push(
        `${env}: standbys ${STANDBY_NAMES.join(", ")} on ${where} (replication through the SSH connection's reverse ` +
          `tunnel), SELECT 1 round trip to them ${mean(rtts).toFixed(3)} ms measured; the primary and the client on ` +
          "this machine, the client direct: nothing emulated",
      );
    } finally {
      await standbys.stop();
    }
  }

  /** Phase 2: standbys behind delayed links, the quorum environments, then the sweep. */
  async quorum(primary: ReplicationPrimary, envs: readonly EnvironmentKey[], sweep: boolean, baseDir?: string) {
    const { p } = this;
    const emulator = await this.setup.time("link", () => this.emulator());
    const baseline = await this.setup.time("baseline", () => measureBaseline(primary.connection, p.calibrationSamples));
    const links: CalibratedLink[] = [];
    const standbys = new Standbys(this.session, primary);
    try {
      // Both links at once (untimed setup, nothing measured yet): a proxy link is a process to start.
      const made = await this.setup.time("link", () =>
        Promise.all(
          STANDBY_NAMES.map((name, i) =>
            emulator.createLink({
              name,
              serverHost: "127.0.0.1",
              serverPort: primary.connection.port,
              address: emulator.kind === "netem" ? STANDBY_ADDRESSES[i] : undefined,
            }),
          ),
        ),
      );
      links.push(...made.map((link) => new CalibratedLink(link, primary.connection, p.calibrationSamples)));
      // Both standby links at one round trip; a target they are already at is checked (calibrate), not set again.
      let standbyAt: { readonly targetMs: number; readonly rttMs: number } | undefined;
      const setStandbyRtt = async (targetMs: number): Promise<number> => {
        const rttMs = await this.setup.time("standbyLink", async () => {
          const again = standbyAt?.targetMs === targetMs;
          this.say(`${again ? "checking" : "setting"} both standby links ${again ? "at" : "to"} ${targetMs} ms…`);
          const achieved: number[] = [];
          for (const l of links) achieved.push((await l.calibrate(targetMs, STANDBY_PURPOSE, true)).achievedRttMs);
          return mean(achieved);
        });
        standbyAt = { targetMs, rttMs };
        return rttMs;
      };
      // The links first: the standbys connect to the primary through them.
      await setStandbyRtt(p.standbyRttMs);
      this.say("copying the primary's data directory into two standbys…");
      const specs = links.map(({ link }, i) => ({
        name: STANDBY_NAMES[i],
        upstreamHost: link.host,
        upstreamPort: link.port,
      }));
      const { admin, lagAdmin } = await this.setup.time("standbys", () => standbys.start(specs, { baseDir }));
      if (envs.length) {
        // Read again with the standbys streaming through the links: the environments report this round trip.
        const standbyRttMs = await setStandbyRtt(p.standbyRttMs);
        await this.environments(envs, primary.connection, { lagAdmin, standbyRttMs, label: "primary with 2 standbys" });
      }
      if (!sweep) return;
      // The sweep's client is direct (for netem, on the client link's address: set it to 0).
      const bench = await this.setup.time("connect", async () => {
        await this.clientLink?.setOneWayDelay(0);
        await resetTable(admin, p.rows);
        return connect(primary.connection);
      });
      try {
        // Standby links set once per round trip; the levels of one repeat still run back to back.
        for (const rtt of sweepOrder(p.sweepStandbyRttsMs, standbyAt?.targetMs)) {
          const standbyRttMs = await setStandbyRtt(rtt);
          for (let repeat = 1; repeat <= p.repeats; repeat++) {
            const session: Session = { bench, admin, lagAdmin, rows: p.rows, clientRttMs: baseline, standbyRttMs };
            await this.block(session, p.syncLevels, repeat, (level, at) =>
              commitLevelTrial(session, at, level, rtt, p.sweepCommits),
            );
          }
        }
      } finally {
        await closeAll([bench]);
      }
    } finally {
      for (const l of links) this.calibrations.push(...l.records);
      await standbys.stop();
      for (const l of links) await l.link.close().catch(ignored("round-trips: close a standby's delay link"));
    }
  }

  /** Phase 2's own embedded primary: standbys copy its data directory, which only the embedded target gives. */
  async ownPrimary(what: string, netem: boolean, baseDir?: string): Promise<ReplicationPrimary | undefined> {
    this.say("starting an embedded primary for the quorum environments…");
    try {
      // netem tells standby links apart by the address they reach the primary on; no links, no emulator.
      const kind = netem ? (await this.emulator()).kind : "proxy";
      const own = await this.setup.time("servers", () =>
        this.session.startServer(
          { engine: "postgresql", name: "05-primary", settings: serverSettings(kind === "netem") },
          { target: "embedded", baseDir },
        ),
      );
      if (canReplicate(own)) {
        this.session.notes.push(
          `the quorum environments ran on their own embedded PostgreSQL ${own.description.version} primary: standbys are copies of its data directory, which only the embedded target gives access to`,
        );
        return own;
      }
      await this.session.stopServer(own);
      this.skip(what, "the embedded primary cannot make standbys here");
    } catch (error) {
      if (this.session.signal.aborted) throw error;
      this.skip(what, `no embedded PostgreSQL to make standbys from: ${redactText(String(error))}`);
    }
    return undefined;
  }
}

export async function runPhases(p: RoundTripsParams, session: PhaseSession, continueOnError = false) {
  // Before anything starts: whether the server is the user's, used as it is (then nothing is emulated around it).
  const { asIs } = await decideTarget("postgresql", p.target);
  const { single, hosted, quorum, hostedQuorum, sweep, skipped } = planPhases(p, asIs);
  const envCount = single.length + hosted.length + quorum.length + hostedQuorum.length;
  const sweepTrials = sweep ? p.sweepStandbyRttsMs.length * p.syncLevels.length : 0;
  const run = new Phases(p, session, continueOnError, p.repeats * (envCount * p.cases.length + sweepTrials));
  for (const { what, reason } of skipped) run.skip(what, reason);
  session.writeMetadata();
  const phaseTwo = quorum.length > 0 || sweep || hostedQuorum.length > 0;
  // Phase 1's server stops while phase 2's primary starts (both untimed setup); awaited before anything is measured.
  let stopping: Promise<void> | undefined;
  const stopped = async () => {
    const s = stopping;
    stopping = undefined;
    if (s) await run.setup.time("servers", () => s);
  };
  try {
    let primary: ReplicationPrimary | undefined;
    if (single.length) {
      run.say("starting the server…");
      // The emulator before the server: whether the server can be the primary depends on its kind.
      const emulatorKind = p.network !== "proxy" && !asIs ? (await run.emulator()).kind : "proxy";
      const server = await session.startServer(phaseOneSpec());
      // The primary too if it can make standbys, is on disk as asked, and needs no netem listen addresses.
      if (canReplicate(server) && emulatorKind === "proxy" && p.quorumStorage === "disk" && phaseTwo) primary = server;
      const label = asIs ? "external server" : "server";
      await run.environments(single, server.connection, { standbyRttMs: null, label });
      if (!primary) {
        stopping = session.stopServer(server);
        // Awaited (and its error thrown) by stopped(); meanwhile no unhandled rejection.
        stopping.catch(ignored("round-trips: stop the server (awaited later)"));
        await run.setup.time("link", async () => run.clientLink?.close());
        run.clientLink = undefined;
      }
    }
    if (hosted.length || !phaseTwo) await stopped();
    for (const { env, host } of hosted) await run.hosted(env, host);
    if (phaseTwo) {
      const baseDir = p.quorumStorage === "memory" ? memoryDirectory() : undefined;
      if (p.quorumStorage === "memory")
        session.notes.push(
          baseDir
            ? `the quorum environments' primary and standbys keep their data in memory (${baseDir}): a WAL flush costs ~nothing there, as on Aurora's storage nodes, so a commit's wait is the standbys' round trip (set quorumStorage: "disk" to add this disk's flushes)`
            : `quorumStorage "memory" asked for, but this machine has no /dev/shm: the quorum cluster's data is on disk, and every flush adds this disk's time`,
        );
      if (!primary) {
        const what = [...quorum, ...hostedQuorum.map((h) => h.env), ...(sweep ? ["the synchronous_commit sweep"] : [])];
        primary = await run.ownPrimary(what.join(", "), quorum.length > 0 || sweep, baseDir);
        session.writeMetadata();
      }
      await stopped();
      if (primary && (quorum.length || sweep)) await run.quorum(primary, quorum, sweep, baseDir);
      if (primary) for (const { env, host } of hostedQuorum) await run.hostedQuorum(primary, env, host);
    }
    session.progress.finish(`${run.done} trials`);
  } finally {
    await stopped().catch(ignored("round-trips: stop the server"));
    await run.clientLink?.close().catch(ignored("round-trips: close the client's delay link"));
    await run.network?.close().catch(ignored("round-trips: close the network emulator"));
  }
  const { calibrations, baselines, network } = run;
  const none = { kind: "none", reason: asIs ? "external server: measured, not emulated" : "no link was needed" };
  const links = network ? { kind: network.kind, reason: network.reason } : none;
  return { calibrations, baselines, network: links, skipped: run.skipped };
}
