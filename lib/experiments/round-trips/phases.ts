/**
 * The run's phases: 1, one server behind emulated client links; 2, a primary whose commits wait for
 * one of two standbys, then the synchronous_commit sweep. The session stops what is left.
 */
import fs from "node:fs";
import type { Client } from "pg";
import { connect } from "../../engines/postgres/connect";
import { releaseSynchronousStandbys, requireSynchronousStandbys } from "../../engines/postgres/synchronous-standbys";
import { createEmulator, type NetworkEmulator } from "../../network/emulator";
import type { DelayLink } from "../../network/types";
import { ignored } from "../../runtime/debug";
import { rotated } from "../../stats/order";
import { decideTarget } from "../../targets/select";
import {
  canReplicate,
  type ConnectionInfo,
  type ReplicationPrimary,
  type ServerSettings,
  type ServerSpec,
  type StandbyOptions,
  type StandbySpec,
  type StartedServer,
} from "../../targets/types";
import { redactText } from "../../targets/uri";
import type { RunOf } from "../define";
import type { ExperimentSession, RunControl } from "../session";
import { hostEndpoint, type RoundTripsParams } from "./params";
import { resetTable } from "./workload/dataset";
import {
  ENVIRONMENT_INFO,
  QUORUM,
  quorumEnvironments,
  singleServerEnvironments,
  STANDBY_NAMES,
} from "./workload/environments";
import { CalibratedLink, measureBaseline, type CalibrationRecord } from "./workload/links";
import {
  BetweenTrials,
  caseTrial,
  commitLevelTrial,
  runRoundTripTrials,
  type Session,
  type TrialContext,
} from "./workload/trial-runner";
import type { EnvironmentKey, RoundTripCondition, RoundTripTrial } from "./workload/trials";

/** What a run carries besides its trials (calibration.json holds the first three). */
export interface PhasesResult {
  readonly calibrations: readonly CalibrationRecord[];
  /** Each server's direct SELECT 1 round trip, ms. */
  readonly baselines: Readonly<Record<string, number>>;
  readonly network: { readonly kind: string; readonly reason: string };
  readonly skipped: readonly { readonly what: string; readonly reason: string }[];
}

export type RoundTripsRun = RunOf<RoundTripsParams, RoundTripTrial, PhasesResult>;

/** Phase 1's server; an external one's pre-flight checks CREATEDB, CHECKPOINT and two sessions (no extension). */
export function phaseOneSpec(): ServerSpec {
  return {
    engine: "postgresql",
    name: "05-pg",
    settings: serverSettings(false),
    uses: { notebook: "05 round trips", clients: 2 },
  };
}

/** WAL sync timing on (the seed read wal_sync_time), WAL kept for standbys. */
function serverSettings(netemAddresses: boolean): ServerSettings {
  return {
    track_wal_io_timing: "on",
    track_io_timing: "on",
    wal_keep_size: "256MB",
    // netem tells links apart by loopback address: the primary listens on one per standby link.
    ...(netemAddresses ? { listen_addresses: "127.0.0.1,127.0.0.2,127.0.0.3" } : {}),
  };
}

const STANDBY_ADDRESSES = ["127.0.0.2", "127.0.0.3"];

/** Linux /dev/shm, if writable. */
function memoryDirectory(): string | undefined {
  try {
    fs.accessSync("/dev/shm", fs.constants.W_OK);
    return fs.statSync("/dev/shm").isDirectory() ? "/dev/shm" : undefined;
  } catch {
    return undefined; // the caller says so in the notes and uses the disk
  }
}

interface State {
  readonly p: RoundTripsParams;
  readonly ctx: TrialContext;
  readonly session: ExperimentSession<RoundTripCondition>;
  readonly calibrations: CalibrationRecord[];
  readonly baselines: Record<string, number>;
  readonly say: (message: string) => void;
  readonly emulator: () => Promise<NetworkEmulator>;
  /** Created once for the phase-1 server, and reused if that server becomes the primary. */
  clientLink?: DelayLink;
}

async function closeAll(clients: (Client | undefined)[]): Promise<void> {
  for (const c of clients) await c?.end().catch(ignored("round-trips: end a client"));
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Every repeat × environment × case on one server. */
async function runEnvironments(
  st: State,
  envs: readonly EnvironmentKey[],
  server: ConnectionInfo,
  options: {
    readonly lagAdmin?: Client;
    readonly standbyRttMs: number | null;
    readonly serverLabel: string;
    readonly real?: boolean;
  },
): Promise<void> {
  const { p, ctx } = st;
  const targetOf = (env: EnvironmentKey) => (options.real ? null : ENVIRONMENT_INFO[env].clientTargetMs(p));
  const baseline = await ctx.between.time("baselineSeconds", async () => {
    // A netem link delays direct connections to its address too: at 0 while measuring loopback.
    await st.clientLink?.setOneWayDelay(0);
    return measureBaseline(server, p.calibrationSamples);
  });
  st.baselines[options.serverLabel] = baseline;
  let calibrated: CalibratedLink | undefined;
  if (envs.some((e) => targetOf(e) !== null)) {
    const emulator = await ctx.between.time("linkSeconds", () => st.emulator());
    st.clientLink ??= await ctx.between.time("linkSeconds", () =>
      emulator.createLink({ name: "client", serverHost: server.host, serverPort: server.port }),
    );
    calibrated = new CalibratedLink(st.clientLink, server, p.calibrationSamples);
  }
  const admin = await ctx.between.time("connectSeconds", () => connect(server));
  try {
    for (let repeat = 1; repeat <= p.repeats; repeat++) {
      for (const env of envs) {
        const target = targetOf(env);
        let connection = server;
        let clientRttMs = baseline;
        let link: DelayLink | undefined;
        // The client link is set once per block (one environment's cases in one repeat): repeats
        // interleave the environments, so the claims' per-repeat pairs run close together.
        if (target === null) await ctx.between.time("linkSeconds", async () => calibrated?.link.setOneWayDelay(0));
        if (target !== null && calibrated) {
          st.say(`setting the client link to ${target} ms for ${env}…`);
          const cal = await ctx.between.time("linkSeconds", () =>
            calibrated.calibrate(target, `${env} (${options.serverLabel})`),
          );
          connection = calibrated.connectionFor(cal);
          clientRttMs = cal.achievedRttMs;
          link = cal.mode === "direct" ? undefined : calibrated.link;
        }
        const bench = await ctx.between.time("connectSeconds", () => connect(connection));
        try {
          const { lagAdmin, standbyRttMs, real } = options;
          const session: Session = { bench, admin, lagAdmin, rows: p.rows, clientRttMs, standbyRttMs, link, real };
          // Cases rotate between repeats (recorded as `order`): drift within a repeat does not always land on one case.
          const plan = rotated(p.cases, repeat - 1).map((c, order) =>
            caseTrial(ctx, session, env, c, p.statements, repeat, order),
          );
          await runRoundTripTrials(ctx, session, plan);
        } finally {
          await closeAll([bench]);
        }
      }
    }
  } finally {
    await closeAll([admin]);
    if (calibrated) st.calibrations.push(...calibrated.records);
  }
}

/** QUORUM standbys of a primary and two sessions on it; `stop` undoes it all. */
class Standbys {
  servers: readonly StartedServer[] = [];
  admin?: Client;
  lagAdmin?: Client;

  constructor(
    private readonly st: State,
    private readonly primary: ReplicationPrimary,
  ) {}

  async start(specs: readonly StandbySpec[], options?: StandbyOptions): Promise<{ admin: Client; lagAdmin: Client }> {
    this.servers = (await this.primary.replication.startStandbys(specs, options)).map((s) => this.st.session.adopt(s));
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
    for (const s of this.servers) await this.st.session.stopServer(s).catch(ignored("round-trips: stop a standby"));
  }
}

/**
 * Phase 2 on real hosts: the primary stays here (standbys copy its data directory, which only the
 * embedded target gives), its standbys on the named engine, reached over its SSH connection.
 */
async function runHostedQuorum(
  st: State,
  primary: ReplicationPrimary,
  env: EnvironmentKey,
  host: string,
): Promise<void> {
  const endpoint = hostEndpoint(`hosts.${env === "quorum-same-az" ? "sameAz" : "crossAz"}`, host);
  const standbys = new Standbys(st, primary);
  try {
    st.say(`copying the primary's data directory into two standbys on ${host}…`);
    const { port, host: upstreamHost } = primary.connection;
    const { lagAdmin } = await standbys.start(
      STANDBY_NAMES.map((name) => ({ name, upstreamHost, upstreamPort: port, on: endpoint })),
    );
    const rtts: number[] = [];
    for (const s of standbys.servers) rtts.push(await measureBaseline(s.connection, st.p.calibrationSamples));
    const where = standbys.servers[0].network?.dockerHost ?? host;
    await runEnvironments(st, [env], primary.connection, {
      lagAdmin,
      standbyRttMs: mean(rtts),
      serverLabel: `${env}: primary here, 2 standbys on ${where}`,
      real: true,
    });
    st.session.notes.push(
      `${env}: standbys ${STANDBY_NAMES.join(", ")} on ${where} (replication through the SSH connection's reverse ` +
        `tunnel), SELECT 1 round trip to them ${mean(rtts).toFixed(3)} ms measured; the primary and the client on ` +
        "this machine, the client direct: nothing emulated",
    );
  } finally {
    await standbys.stop();
  }
}

/** Phase 2: standbys behind delayed links, the quorum environments, then the sweep. */
async function runQuorumPhase(
  st: State,
  primary: ReplicationPrimary,
  envs: readonly EnvironmentKey[],
  sweep: boolean,
  baseDir: string | undefined,
): Promise<void> {
  const { p, ctx } = st;
  const emulator = await ctx.between.time("linkSeconds", () => st.emulator());
  const baseline = await ctx.between.time("baselineSeconds", () =>
    measureBaseline(primary.connection, p.calibrationSamples),
  );
  const standbyLinks: CalibratedLink[] = [];
  const standbys = new Standbys(st, primary);
  try {
    for (const [i, name] of STANDBY_NAMES.entries()) {
      const link = await ctx.between.time("linkSeconds", () =>
        emulator.createLink({
          name,
          serverHost: "127.0.0.1",
          serverPort: primary.connection.port,
          address: emulator.kind === "netem" ? STANDBY_ADDRESSES[i] : undefined,
        }),
      );
      standbyLinks.push(new CalibratedLink(link, primary.connection, p.calibrationSamples));
    }
    const setStandbyRtt = (targetMs: number): Promise<number> =>
      ctx.between.time("standbyLinkSeconds", async () => {
        st.say(`setting both standby links to ${targetMs} ms…`);
        const achieved: number[] = [];
        for (const l of standbyLinks)
          achieved.push((await l.calibrate(targetMs, "primary ↔ standby", true)).achievedRttMs);
        return mean(achieved);
      });
    let standbyRttMs = await setStandbyRtt(p.standbyRttMs);
    st.say("copying the primary's data directory into two standbys…");
    const { admin, lagAdmin } = await ctx.between.time("standbysSeconds", () =>
      standbys.start(
        standbyLinks.map((l, i) => ({ name: STANDBY_NAMES[i], upstreamHost: l.link.host, upstreamPort: l.link.port })),
        { baseDir },
      ),
    );
    if (envs.length)
      await runEnvironments(st, envs, primary.connection, {
        lagAdmin,
        standbyRttMs,
        serverLabel: "primary with 2 standbys",
      });
    if (!sweep) return;
    // The sweep's client is direct (for netem, on the client link's address: set it to 0).
    const bench = await ctx.between.time("connectSeconds", async () => {
      await st.clientLink?.setOneWayDelay(0);
      await resetTable(admin, p.rows);
      return connect(primary.connection);
    });
    try {
      // Standby links set once per round trip; the levels of one repeat still run back to back.
      for (const rtt of p.sweepStandbyRttsMs) {
        standbyRttMs = await setStandbyRtt(rtt);
        for (let repeat = 1; repeat <= p.repeats; repeat++) {
          const session: Session = { bench, admin, lagAdmin, rows: p.rows, clientRttMs: baseline, standbyRttMs };
          const plan = rotated(p.syncLevels, repeat - 1).map((level, order) =>
            commitLevelTrial(ctx, session, level, rtt, p.sweepCommits, repeat, order),
          );
          await runRoundTripTrials(ctx, session, plan);
        }
      }
    } finally {
      await closeAll([bench]);
    }
  } finally {
    for (const l of standbyLinks) st.calibrations.push(...l.records);
    await standbys.stop();
    for (const l of standbyLinks) await l.link.close().catch(ignored("round-trips: close a standby's delay link"));
  }
}

type Hosted<E> = { readonly env: E; readonly host: string };

/** What runs where, decided before any server starts. */
export interface PhasePlan {
  readonly single: readonly EnvironmentKey[];
  readonly hosted: readonly Hosted<"same-az" | "cross-az">[];
  readonly quorum: readonly EnvironmentKey[];
  readonly hostedQuorum: readonly Hosted<"quorum-same-az" | "quorum-cross-az">[];
  readonly sweep: boolean;
  readonly skipped: readonly { readonly what: string; readonly reason: string }[];
}

export function planPhases(p: RoundTripsParams, asIs: boolean): PhasePlan {
  const sweep = p.sweepStandbyRttsMs.length > 0 && p.syncLevels.length > 0;
  const singles = singleServerEnvironments(p.environments);
  const quorums = quorumEnvironments(p.environments);
  const placed = <E extends EnvironmentKey>(same: E, cross: E, among: readonly EnvironmentKey[]) =>
    [same, cross]
      .map((env) => ({ env, host: env === same ? p.hosts.sameAz : p.hosts.crossAz }))
      .filter((h): h is Hosted<E> => h.host !== undefined && among.includes(h.env));
  const hosted = placed("same-az", "cross-az", singles);
  if (asIs) {
    const emulated = p.environments.filter((e) => e !== "local");
    const reason = "an external server is measured as it is: no delays or standbys are emulated in front of it";
    return {
      single: ["external"],
      hosted,
      quorum: [],
      hostedQuorum: [],
      sweep: false,
      skipped: [
        ...(emulated.length ? [{ what: emulated.join(", "), reason }] : []),
        ...(sweep ? [{ what: "synchronous_commit sweep", reason: "it needs standbys the lab runs" }] : []),
      ],
    };
  }
  const hostedQuorum = placed("quorum-same-az", "quorum-cross-az", quorums);
  return {
    single: singles.filter((e) => !hosted.some((h) => h.env === e)),
    hosted,
    quorum: quorums.filter((e) => !hostedQuorum.some((h) => h.env === e)),
    hostedQuorum,
    sweep,
    skipped: [],
  };
}

/** The phases of one run, in the session the base opened. */
export async function runPhases(
  p: RoundTripsParams,
  session: ExperimentSession<RoundTripCondition>,
  control: RunControl,
): Promise<PhasesResult> {
  // Before anything starts: whether the server is the user's, used as it is (then nothing is emulated around it).
  const { asIs } = await decideTarget("postgresql", p.target);
  const { store, progress } = session;
  const skipped: { what: string; reason: string }[] = [];
  const skip = (what: string, reason: string) => {
    skipped.push({ what, reason });
    session.notes.push(`not run here: ${what} — ${reason}`);
  };
  const phases = planPhases(p, asIs);
  for (const { what, reason } of phases.skipped) skip(what, reason);
  const { single, hosted, quorum, hostedQuorum, sweep } = phases;
  const envCount = single.length + hosted.length + quorum.length + hostedQuorum.length;
  const total =
    p.repeats * (envCount * p.cases.length + (sweep ? p.sweepStandbyRttsMs.length * p.syncLevels.length : 0));
  let done = 0;
  let emulator: NetworkEmulator | undefined;
  const st: State = {
    p,
    session,
    calibrations: [],
    baselines: {},
    say: (message) => progress.update(done, total, message),
    emulator: async () => {
      if (!emulator) {
        emulator = await createEmulator(p.network);
        session.notes.push(`links: ${emulator.reason}`);
        session.writeMetadata();
      }
      return emulator;
    },
    ctx: {
      between: new BetweenTrials(),
      store,
      signal: session.signal,
      continueOnError: control.continueOnError ?? false,
      onProgress: ({ skipped, last }) => {
        if (!last) {
          // The start of a phase's plan: its trials already on disk (a resume) count as done.
          done += skipped;
          if (skipped) progress.update(done, total, `${skipped} trial(s) already on disk`);
          return;
        }
        done++;
        progress.update(
          done,
          total,
          `${last.key}: ${last.seconds !== undefined ? `${last.seconds.toFixed(2)} s` : "failed"}`,
        );
      },
    },
  };
  session.writeMetadata();
  const phaseTwo = quorum.length > 0 || sweep || hostedQuorum.length > 0;
  try {
    let primary: ReplicationPrimary | undefined;
    if (single.length) {
      st.say("starting the server…");
      // The emulator before the server: whether the server can be the primary depends on its kind.
      const emulatorKind = p.network !== "proxy" && !asIs ? (await st.emulator()).kind : "proxy";
      const server = await session.startServer(phaseOneSpec());
      // The primary too if it can make standbys, is on disk as asked, and needs no netem listen addresses.
      if (canReplicate(server) && emulatorKind === "proxy" && p.quorumStorage === "disk" && phaseTwo) primary = server;
      await runEnvironments(st, single, server.connection, {
        standbyRttMs: null,
        serverLabel: asIs ? "external server" : "server",
      });
      if (!primary) {
        await st.ctx.between.time("serversSeconds", () => session.stopServer(server));
        await st.clientLink?.close();
        st.clientLink = undefined;
      }
    }
    for (const { env, host } of hosted) {
      st.say(`starting a server on ${host} for ${env}…`);
      const server = await session.startServer(
        { engine: "postgresql", name: `05-${env}`, settings: serverSettings(false) },
        { endpoint: hostEndpoint(`hosts.${env === "same-az" ? "sameAz" : "crossAz"}`, host) },
      );
      try {
        const label = `${env} on ${server.network?.dockerHost ?? host}`;
        await runEnvironments(st, [env], server.connection, { standbyRttMs: null, serverLabel: label, real: true });
        session.notes.push(
          `${env}: a real server on ${server.network?.dockerHost ?? host} (route ${server.network?.route}), ` +
            `SELECT 1 round trip ${st.baselines[label].toFixed(3)} ms measured, not emulated`,
        );
      } finally {
        await session.stopServer(server).catch(ignored("round-trips: stop a hosted server"));
      }
    }
    if (phaseTwo) {
      const baseDir = p.quorumStorage === "memory" ? memoryDirectory() : undefined;
      if (p.quorumStorage === "memory")
        session.notes.push(
          baseDir
            ? `the quorum environments' primary and standbys keep their data in memory (${baseDir}): a WAL flush costs ~nothing there, as on Aurora's storage nodes, so a commit's wait is the standbys' round trip (set quorumStorage: "disk" to add this disk's flushes)`
            : `quorumStorage "memory" asked for, but this machine has no /dev/shm: the quorum cluster's data is on disk, and every flush adds this disk's time`,
        );
      if (!primary) {
        st.say("starting an embedded primary for the quorum environments…");
        const what = [...quorum, ...hostedQuorum.map((h) => h.env), ...(sweep ? ["the synchronous_commit sweep"] : [])];
        try {
          // netem tells standby links apart by the address they reach the primary on; no links, no emulator.
          const emulatorKind = quorum.length || sweep ? (await st.emulator()).kind : "proxy";
          // Embedded, whatever the session's target: standbys are copies of the primary's data
          // directory, which only the embedded target gives access to.
          const own = await st.ctx.between.time("serversSeconds", () =>
            session.startServer(
              { engine: "postgresql", name: "05-primary", settings: serverSettings(emulatorKind === "netem") },
              { target: "embedded", baseDir },
            ),
          );
          if (canReplicate(own)) {
            primary = own;
            session.notes.push(
              `the quorum environments ran on their own embedded PostgreSQL ${own.description.version} primary: standbys are copies of its data directory, which only the embedded target gives access to`,
            );
          } else {
            await session.stopServer(own);
            skip(what.join(", "), "the embedded primary cannot make standbys here");
          }
        } catch (error) {
          if (session.signal.aborted) throw error;
          skip(what.join(", "), `no embedded PostgreSQL to make standbys from: ${redactText(String(error))}`);
        }
        session.writeMetadata();
      }
      if (primary && (quorum.length || sweep)) await runQuorumPhase(st, primary, quorum, sweep, baseDir);
      if (primary) for (const { env, host } of hostedQuorum) await runHostedQuorum(st, primary, env, host);
    }
    progress.finish(`${done} trials`);
  } finally {
    await st.clientLink?.close().catch(ignored("round-trips: close the client's delay link"));
    await emulator?.close().catch(ignored("round-trips: close the network emulator"));
  }
  const network = emulator ? { kind: emulator.kind, reason: emulator.reason } : null;
  store.writeSummary("calibration.json", { baselines: st.baselines, calibrations: st.calibrations, network });
  return {
    calibrations: st.calibrations,
    baselines: st.baselines,
    network: network ?? {
      kind: "none",
      reason: asIs ? "external server: measured, not emulated" : "no link was needed",
    },
    skipped,
  };
}
