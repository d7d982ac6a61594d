/**
 * Notebook 05's experiment. Phase 1: one server, the client direct and behind an emulated same-AZ
 * and cross-AZ link. Phase 2: the same cases on a primary whose commits wait for one of two
 * standbys in other "AZs" (synchronous_standby_names = 'ANY 1 (s1, s2)'), then commit latency by
 * synchronous_commit level and standby round trip. Against a server used as it is (an external
 * URI): measured, not emulated. It runs inside `withSession` like every experiment; its servers are
 * started phase by phase through the session, which stops whatever is left, standbys before their
 * primary.
 */
import fs from "node:fs";
import type { Client } from "pg";
import { connect } from "../../engines/postgres/connect";
import { releaseSynchronousStandbys, requireSynchronousStandbys } from "../../engines/postgres/synchronous-standbys";
import { createEmulator, type NetworkEmulator } from "../../network/emulator";
import type { DelayLink } from "../../network/types";
import { hostEndpoint, type RoundTripsParams } from "./params";
import type { DockerEndpoint } from "../../targets/docker/endpoint";
import type { RunMetadata } from "../../results/metadata";
import { decideTarget } from "../../targets/select";
import {
  canReplicate,
  type ConnectionInfo,
  type ReplicationPrimary,
  type ServerSettings,
  type ServerSpec,
  type StartedServer,
} from "../../targets/types";
import { redactText } from "../../targets/uri";
import { resetTable } from "./workload/dataset";
import { rotated } from "../../stats/order";
import type { EnvironmentKey, RoundTripCondition, RoundTripTrial } from "./workload/trials";
import { withSession, type ExperimentSession, type RunControl } from "../session";
import { estimateRun } from "../eta";
import { estimate as eta } from "./eta";
import { ENVIRONMENT_INFO, QUORUM, quorumEnvironments, singleServerEnvironments, STANDBY_NAMES } from "./environments";
import { CalibratedLink, measureBaseline, type CalibrationRecord } from "./links";
import {
  BetweenTrials,
  caseTrial,
  commitLevelTrial,
  runRoundTripTrials,
  type Session,
  type TrialContext,
} from "./trial-runner";
import { ignored } from "../../runtime/debug";

export type { RunControl } from "../session";

export const NOTEBOOK = "05-round-trips";

export interface RoundTripsRun {
  readonly runId: string;
  readonly directory: string;
  readonly params: RoundTripsParams;
  readonly trials: readonly RoundTripTrial[];
  readonly metadata: RunMetadata;
  readonly calibrations: readonly CalibrationRecord[];
  /** The direct SELECT 1 round trip of each server, ms. */
  readonly baselines: Readonly<Record<string, number>>;
  readonly network: { readonly kind: string; readonly reason: string };
  /** What this run could not do here, and why. */
  readonly skipped: readonly { readonly what: string; readonly reason: string }[];
}

/** Settings of every server here: WAL sync timing on (the seed read wal_sync_time), WAL kept for standbys. */
/**
 * Phase 1's server. On an external one the pre-flight checks what 05 needs there as it does for
 * the others: CREATEDB (its own database), CHECKPOINT (before every timed stream) and two sessions
 * (the timed one and the counters' one); 05 uses no extension.
 */
export function phaseOneSpec(): ServerSpec {
  return {
    engine: "postgresql",
    name: "05-pg",
    settings: serverSettings(false),
    uses: { notebook: "05 round trips", clients: 2 },
  };
}

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

/** A memory-backed directory for the quorum cluster's data (Linux /dev/shm), if there is one. */
function memoryDirectory(): string | undefined {
  try {
    const dir = "/dev/shm";
    fs.accessSync(dir, fs.constants.W_OK);
    return fs.statSync(dir).isDirectory() ? dir : undefined;
  } catch {
    return undefined; // no writable /dev/shm: the caller says so in the notes and uses the disk
  }
}

interface State {
  readonly p: RoundTripsParams;
  readonly ctx: TrialContext;
  readonly session: ExperimentSession<RoundTripCondition>;
  readonly calibrations: CalibrationRecord[];
  readonly baselines: Record<string, number>;
  /** A progress line between trials (setup, calibration). */
  readonly say: (message: string) => void;
  /** The link emulator, made on first use (its kind and reason go into the notes). */
  readonly emulator: () => Promise<NetworkEmulator>;
  /** The client link, created once, pointed at the phase-1 server (and reused if that server is the primary). */
  clientLink?: DelayLink;
}

async function closeAll(clients: (Client | undefined)[]): Promise<void> {
  for (const c of clients) await c?.end().catch(ignored("round-trips: end a client"));
}

/** Runs every repeat × environment × case on one server (phase 1, or phase 2 with standbys). */
async function runEnvironments(
  st: State,
  envs: readonly EnvironmentKey[],
  server: ConnectionInfo,
  options: {
    readonly lagAdmin?: Client;
    readonly standbyRttMs: number | null;
    readonly serverLabel: string;
    /** The server is on a real host (`hosts`): its round trip is the real one, nothing is emulated. */
    readonly real?: boolean;
  },
): Promise<void> {
  const p = st.p;
  const between = st.ctx.between;
  const targetOf = (env: EnvironmentKey): number | null =>
    options.real ? null : ENVIRONMENT_INFO[env].clientTargetMs(p);
  const baseline = await between.time("baselineSeconds", async () => {
    // A netem link delays direct connections to its address too: at 0 while measuring loopback.
    await st.clientLink?.setOneWayDelay(0);
    return measureBaseline(server, p.calibrationSamples);
  });
  st.baselines[options.serverLabel] = baseline;
  const needsLink = envs.some((e) => targetOf(e) !== null);
  let calibrated: CalibratedLink | undefined;
  if (needsLink) {
    const emulator = await between.time("linkSeconds", () => st.emulator());
    st.clientLink ??= await between.time("linkSeconds", () =>
      emulator.createLink({
        name: "client",
        serverHost: server.host,
        serverPort: server.port,
      }),
    );
    calibrated = new CalibratedLink(st.clientLink, server, p.calibrationSamples);
  }
  const admin = await between.time("connectSeconds", () => connect(server));
  try {
    for (let repeat = 1; repeat <= p.repeats; repeat++) {
      for (const env of envs) {
        const target = targetOf(env);
        let connection = server;
        let clientRttMs = baseline;
        let link: DelayLink | undefined;
        // The client link is set once per block of trials (one environment's cases in one repeat):
        // repeats interleave the environments, so the claims' per-repeat pairs are run close together.
        if (target === null) await between.time("linkSeconds", async () => calibrated?.link.setOneWayDelay(0));
        if (target !== null && calibrated) {
          st.say(`setting the client link to ${target} ms for ${env}…`);
          const cal = await between.time("linkSeconds", () =>
            calibrated.calibrate(target, `${env} (${options.serverLabel})`),
          );
          connection = calibrated.connectionFor(cal);
          clientRttMs = cal.achievedRttMs;
          link = cal.mode === "direct" ? undefined : calibrated.link;
        }
        const bench = await between.time("connectSeconds", () => connect(connection));
        try {
          const session: Session = {
            bench,
            admin,
            lagAdmin: options.lagAdmin,
            rows: p.rows,
            clientRttMs,
            standbyRttMs: options.standbyRttMs,
            link,
            real: options.real,
          };
          // Cases rotate between repeats (recorded as `order`): drift within a repeat does not always land on the same
          // case.
          const plan = rotated(p.cases, repeat - 1).map((c, order) =>
            caseTrial(st.ctx, session, env, c, p.statements, repeat, order),
          );
          await runRoundTripTrials(st.ctx, session, plan);
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

/**
 * Phase 2 on real hosts: one quorum environment whose two standbys run on the engine the user named
 * for it. Where a DBA would put them: the primary stays with the client on this machine (it must:
 * its standbys are copies of its data directory, which only the embedded target gives), and the
 * copies a commit waits for are on the other host, so the commit pays that real round trip, over the
 * path the user allowed (the engine's SSH connection), with nothing emulated. The client is direct.
 */
async function runHostedQuorum(
  st: State,
  primary: ReplicationPrimary,
  env: EnvironmentKey,
  host: string,
  endpoint: DockerEndpoint,
): Promise<void> {
  const p = st.p;
  let standbys: readonly StartedServer[] = [];
  let admin: Client | undefined;
  let lagAdmin: Client | undefined;
  try {
    st.say(`copying the primary's data directory into two standbys on ${host}…`);
    standbys = (
      await primary.replication.startStandbys(
        STANDBY_NAMES.map((name) => ({
          name,
          upstreamHost: primary.connection.host,
          upstreamPort: primary.connection.port,
          on: endpoint,
        })),
      )
    ).map((s) => st.session.adopt(s));
    // The standbys' round trip as the lab sees it: SELECT 1 through the same SSH connection replication uses.
    const rtts: number[] = [];
    for (const s of standbys) rtts.push(await measureBaseline(s.connection, p.calibrationSamples));
    const standbyRtt = rtts.reduce((a, b) => a + b, 0) / rtts.length;
    admin = await connect(primary.connection);
    await requireSynchronousStandbys(admin, QUORUM, STANDBY_NAMES.length);
    lagAdmin = await connect(primary.connection);
    const where = standbys[0].network?.dockerHost ?? host;
    await runEnvironments(st, [env], primary.connection, {
      lagAdmin,
      standbyRttMs: standbyRtt,
      serverLabel: `${env}: primary here, 2 standbys on ${where}`,
      real: true,
    });
    st.session.notes.push(
      `${env}: standbys ${STANDBY_NAMES.join(", ")} on ${where} (replication through the SSH connection's reverse ` +
        `tunnel), SELECT 1 round trip to them ${standbyRtt.toFixed(3)} ms measured; the primary and the client on ` +
        "this machine, the client direct: nothing emulated",
    );
  } finally {
    await releaseSynchronousStandbys(admin);
    await closeAll([lagAdmin, admin]);
    for (const s of standbys) await st.session.stopServer(s).catch(ignored("round-trips: stop a standby"));
  }
}

/** Phase 2: standbys over delayed links, quorum environments, then the synchronous_commit sweep. */
async function runQuorumPhase(
  st: State,
  primary: ReplicationPrimary,
  envs: readonly EnvironmentKey[],
  sweep: boolean,
  baseDir: string | undefined,
): Promise<void> {
  const p = st.p;
  const between = st.ctx.between;
  const emulator = await between.time("linkSeconds", () => st.emulator());
  const netem = emulator.kind === "netem";
  const baseline = await between.time("baselineSeconds", () =>
    measureBaseline(primary.connection, p.calibrationSamples),
  );
  const standbyLinks: CalibratedLink[] = [];
  let standbys: readonly StartedServer[] = [];
  let admin: Client | undefined;
  let lagAdmin: Client | undefined;
  try {
    for (const [i, name] of STANDBY_NAMES.entries()) {
      const link = await between.time("linkSeconds", () =>
        emulator.createLink({
          name,
          serverHost: "127.0.0.1",
          serverPort: primary.connection.port,
          address: netem ? STANDBY_ADDRESSES[i] : undefined,
        }),
      );
      standbyLinks.push(new CalibratedLink(link, primary.connection, p.calibrationSamples));
    }
    const setStandbyRtt = (targetMs: number): Promise<number> =>
      between.time("standbyLinkSeconds", async () => {
        st.say(`setting both standby links to ${targetMs} ms…`);
        const achieved: number[] = [];
        for (const l of standbyLinks)
          achieved.push((await l.calibrate(targetMs, "primary ↔ standby", true)).achievedRttMs);
        return achieved.reduce((a, b) => a + b, 0) / achieved.length;
      });
    let standbyRtt = await setStandbyRtt(p.standbyRttMs);
    st.say("copying the primary's data directory into two standbys…");
    const connected = await between.time("standbysSeconds", async () => {
      // The session stops them, if this phase does not, before their primary (it came first).
      standbys = (
        await primary.replication.startStandbys(
          standbyLinks.map((l, i) => ({
            name: STANDBY_NAMES[i],
            upstreamHost: l.link.host,
            upstreamPort: l.link.port,
          })),
          { baseDir },
        )
      ).map((s) => st.session.adopt(s));
      // Connected only now: making the standbys restarted the primary.
      const a = await connect(primary.connection);
      admin = a;
      await requireSynchronousStandbys(a, QUORUM, STANDBY_NAMES.length);
      const l = await connect(primary.connection);
      lagAdmin = l;
      return { admin: a, lagAdmin: l };
    });
    if (envs.length)
      await runEnvironments(st, envs, primary.connection, {
        lagAdmin: connected.lagAdmin,
        standbyRttMs: standbyRtt,
        serverLabel: "primary with 2 standbys",
      });
    if (sweep) {
      // The sweep's client is direct (for netem, on the client link's address: set it to 0).
      const bench = await between.time("connectSeconds", async () => {
        await st.clientLink?.setOneWayDelay(0);
        await resetTable(connected.admin, p.rows);
        return connect(primary.connection);
      });
      try {
        // Standby round trips in blocks, repeats inside (as 01's sizes): the standby links are set
        // once per round trip, not once per repeat. The claim pairs levels within one repeat at one
        // round trip, and those still run back to back, each repeat in its own rotated order.
        for (const rtt of p.sweepStandbyRttsMs) {
          standbyRtt = await setStandbyRtt(rtt);
          for (let repeat = 1; repeat <= p.repeats; repeat++) {
            const session: Session = {
              bench,
              admin: connected.admin,
              lagAdmin: connected.lagAdmin,
              rows: p.rows,
              clientRttMs: baseline,
              standbyRttMs: standbyRtt,
            };
            const plan = rotated(p.syncLevels, repeat - 1).map((level, order) =>
              commitLevelTrial(st.ctx, session, level, rtt, p.sweepCommits, repeat, order),
            );
            await runRoundTripTrials(st.ctx, session, plan);
          }
        }
      } finally {
        await closeAll([bench]);
      }
    }
  } finally {
    for (const l of standbyLinks) st.calibrations.push(...l.records);
    // No commit may wait for a standby that is going away.
    await releaseSynchronousStandbys(admin);
    await closeAll([lagAdmin, admin]);
    for (const s of standbys) await st.session.stopServer(s).catch(ignored("round-trips: stop a standby"));
    for (const l of standbyLinks) await l.link.close().catch(ignored("round-trips: close a standby's delay link"));
  }
}

/** What runs where: decided once, before any server starts, from the parameters and the target. */
export interface PhasePlan {
  /** Phase 1 on the run's own server, behind emulated links (or `["external"]` for a server used as it is). */
  readonly single: readonly EnvironmentKey[];
  /** Phase 1 environments on a real host the user named (`hosts`): a server there each, nothing emulated. */
  readonly hosted: readonly { readonly env: "same-az" | "cross-az"; readonly host: string }[];
  /** Phase 2 on an embedded primary with standbys behind emulated links. */
  readonly quorum: readonly EnvironmentKey[];
  /** Phase 2 environments whose standbys run on a named host. */
  readonly hostedQuorum: readonly { readonly env: "quorum-same-az" | "quorum-cross-az"; readonly host: string }[];
  readonly sweep: boolean;
  /** What the target rules out, and why (an external server is measured as it is). */
  readonly skipped: readonly { readonly what: string; readonly reason: string }[];
}

export function planPhases(p: RoundTripsParams, asIs: boolean): PhasePlan {
  const sweep = p.sweepStandbyRttsMs.length > 0 && p.syncLevels.length > 0;
  const singles = singleServerEnvironments(p.environments);
  const quorums = quorumEnvironments(p.environments);
  // Environments the user placed on real hosts: run there, not behind an emulated link.
  const hosted = (["same-az", "cross-az"] as const)
    .map((env) => ({ env, host: env === "same-az" ? p.hosts.sameAz : p.hosts.crossAz }))
    .filter((h): h is { env: "same-az" | "cross-az"; host: string } => h.host !== undefined && singles.includes(h.env));
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
  // Quorum environments whose standbys go on a named host (the params checked it is an ssh:// engine).
  const hostedQuorum = (["quorum-same-az", "quorum-cross-az"] as const)
    .map((env) => ({ env, host: env === "quorum-same-az" ? p.hosts.sameAz : p.hosts.crossAz }))
    .filter(
      (h): h is { env: "quorum-same-az" | "quorum-cross-az"; host: string } =>
        h.host !== undefined && quorums.includes(h.env),
    );
  return {
    single: singles.filter((e) => !hosted.some((h) => h.env === e)),
    hosted,
    quorum: quorums.filter((e) => !hostedQuorum.some((h) => h.env === e)),
    hostedQuorum,
    sweep,
    skipped: [],
  };
}

function plannedTrials(p: RoundTripsParams, envCount: number, sweep: boolean): number {
  return p.repeats * (envCount * p.cases.length + (sweep ? p.sweepStandbyRttsMs.length * p.syncLevels.length : 0));
}

/** `prospect`: what the run can decide, said in its first progress line (the experiment passes plan05's text). */
export async function runRoundTrips(
  p: RoundTripsParams,
  control: RunControl = {},
  prospect?: string,
): Promise<RoundTripsRun> {
  // Before anything starts: whether the server is the user's, used as it is (then nothing is emulated around it).
  const decision = await decideTarget("postgresql", p.target);
  return withSession<RoundTripCondition, RoundTripsRun>(
    {
      notebook: NOTEBOOK,
      estimate: (done) => estimateRun(NOTEBOOK, eta, p, done),
      title: "05 round trips",
      params: p,
      control,
      specs: [],
      target: p.target,
      ...(prospect ? { prospect } : {}),
    },
    (session) => roundTrips(p, control, decision.asIs, session),
  );
}

async function roundTrips(
  p: RoundTripsParams,
  control: RunControl,
  asIs: boolean,
  session: ExperimentSession<RoundTripCondition>,
): Promise<RoundTripsRun> {
  const { store, progress } = session;
  const skipped: { what: string; reason: string }[] = [];
  const skip = (what: string, reason: string) => {
    skipped.push({ what, reason });
    session.notes.push(`not run here: ${what} — ${reason}`);
  };
  const phases = planPhases(p, asIs);
  for (const { what, reason } of phases.skipped) skip(what, reason);
  const { single, hosted, quorum, hostedQuorum, sweep } = phases;
  const total = plannedTrials(p, single.length + hosted.length + quorum.length + hostedQuorum.length, sweep);
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
        const result = last.seconds !== undefined ? `${last.seconds.toFixed(2)} s` : "failed";
        progress.update(done, total, `${last.key}: ${result}`);
      },
    },
  };
  session.writeMetadata();
  try {
    let primary: ReplicationPrimary | undefined;
    const netemWanted = p.network !== "proxy" && !asIs;
    if (single.length) {
      st.say("starting the server…");
      // The emulator before the server: whether the server can be the primary depends on its kind.
      const emulatorKind = netemWanted ? (await st.emulator()).kind : "proxy";
      const server = await session.startServer(phaseOneSpec());
      // The phase-1 server becomes the primary only if the lab can make standbys of it, it is on
      // disk as asked, and it is reachable the way the links need (netem needs extra listen addresses).
      const reusable = emulatorKind === "proxy" && p.quorumStorage === "disk";
      if (canReplicate(server) && reusable && (quorum.length || sweep || hostedQuorum.length)) primary = server;
      await runEnvironments(st, single, server.connection, {
        standbyRttMs: null,
        serverLabel: asIs ? "external server" : "server",
      });
      if (!primary) {
        await st.ctx.between.time("serversSeconds", () => session.stopServer(server));
        if (st.clientLink) {
          await st.clientLink.close();
          st.clientLink = undefined;
        }
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
    if (quorum.length || sweep || hostedQuorum.length) {
      let baseDir: string | undefined;
      if (p.quorumStorage === "memory") {
        baseDir = memoryDirectory();
        session.notes.push(
          baseDir
            ? `the quorum environments' primary and standbys keep their data in memory (${baseDir}): a WAL flush costs ~nothing there, as on Aurora's storage nodes, so a commit's wait is the standbys' round trip (set quorumStorage: "disk" to add this disk's flushes)`
            : `quorumStorage "memory" asked for, but this machine has no /dev/shm: the quorum cluster's data is on disk, and every flush adds this disk's time`,
        );
      }
      if (!primary) {
        st.say("starting an embedded primary for the quorum environments…");
        const what = [
          ...quorum,
          ...hostedQuorum.map((h) => h.env),
          ...(sweep ? ["the synchronous_commit sweep"] : []),
        ].join(", ");
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
            skip(what, "the embedded primary cannot make standbys here");
          }
        } catch (error) {
          if (session.signal.aborted) throw error;
          skip(what, `no embedded PostgreSQL to make standbys from: ${redactText(String(error))}`);
        }
        session.writeMetadata();
      }
      if (primary && (quorum.length || sweep)) await runQuorumPhase(st, primary, quorum, sweep, baseDir);
      for (const { env, host } of hostedQuorum) {
        if (!primary) break; // skipped above, with the reason
        const key = env === "quorum-same-az" ? "sameAz" : "crossAz";
        await runHostedQuorum(st, primary, env, host, hostEndpoint(`hosts.${key}`, host));
      }
    }
    progress.finish(`${done} trials`);
  } finally {
    if (st.clientLink) await st.clientLink.close().catch(ignored("round-trips: close the client's delay link"));
    await emulator?.close().catch(ignored("round-trips: close the network emulator"));
  }
  const network = emulator ? { kind: emulator.kind, reason: emulator.reason } : null;
  store.writeSummary("calibration.json", { baselines: st.baselines, calibrations: st.calibrations, network });
  return {
    runId: store.runId,
    directory: store.directory,
    params: p,
    trials: store.trials(),
    metadata: session.metadata,
    calibrations: st.calibrations,
    baselines: st.baselines,
    network: network ?? {
      kind: "none",
      reason: asIs ? "external server: measured, not emulated" : "no link was needed",
    },
    skipped,
  };
}
