/**
 * Notebook 05's experiment. Phase 1: one server, the client direct and behind an emulated same-AZ
 * and cross-AZ link. Phase 2: the same cases on a primary whose commits wait for one of two
 * standbys in other "AZs" (synchronous_standby_names = 'ANY 1 (s1, s2)'), then commit latency by
 * synchronous_commit level and standby round trip. Against an external server: measured, not
 * emulated. Everything started is stopped in `finally`, standbys before their primary.
 */
import { HostMonitor, sampleHost, type Quietness } from "../../results/quietness";
import { selectOneJitterOn } from "../session";
import os from "node:os";
import fs from "node:fs";
import type { Client } from "pg";
import { progressReporter } from "../../display/progress";
import { connect } from "../../engines/postgres/connect";
import { createEmulator, type NetworkEmulator } from "../../network/emulator";
import type { DelayLink } from "../../network/types";
import { hostEndpoint, type RoundTripsParams } from "../../params/round-trips";
import { gitCommit, hostInfo, type RunMetadata } from "../../results/metadata";
import { RunStore } from "../../results/run-store";
import { endInterruptible, InterruptedError, interruptSignal } from "../../runtime/interrupt";
import { reapOrphans } from "../../runtime/reaper";
import { EmbeddedPostgresTarget } from "../../targets/embedded/embedded-postgres";
import { DockerTarget } from "../../targets/docker/docker-target";
import { decideTarget } from "../../targets/select";
import {
  canReplicate,
  type ConnectionInfo,
  type ReplicationPrimary,
  type ServerDescription,
  type ServerSettings,
  type StartedServer,
} from "../../targets/types";
import { redactText } from "../../targets/uri";
import { resetTable } from "../../workloads/round-trips/dataset";
import { rotated } from "../../stats/order";
import type { EnvironmentKey, RoundTripCondition, RoundTripTrial } from "../../workloads/round-trips/trials";
import { startServers } from "../servers";
import { interruptedMessage } from "../session";
import { ENVIRONMENT_INFO, QUORUM, quorumEnvironments, singleServerEnvironments, STANDBY_NAMES } from "./environments";
import { CalibratedLink, measureBaseline, type CalibrationRecord } from "./links";
import { runCaseTrial, runCommitLevelTrial, type Session, type TrialContext } from "./trial-runner";
import { ignored } from "../../runtime/debug";

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

export interface RunControl {
  readonly resumeId?: string;
  readonly profile?: string;
  readonly signal?: AbortSignal;
  readonly continueOnError?: boolean;
}

/** Settings of every server here: WAL sync timing on (the seed read wal_sync_time), WAL kept for standbys. */
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
  readonly calibrations: CalibrationRecord[];
  readonly baselines: Record<string, number>;
  readonly notes: string[];
  readonly skipped: { what: string; reason: string }[];
  readonly servers: ServerDescription[];
  /** A progress line between trials (setup, calibration). */
  readonly say: (message: string) => void;
  emulator?: NetworkEmulator;
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
  const targetOf = (env: EnvironmentKey): number | null =>
    options.real ? null : ENVIRONMENT_INFO[env].clientTargetMs(p);
  // A netem link delays direct connections to its address too: at 0 while measuring loopback.
  await st.clientLink?.setOneWayDelay(0);
  const baseline = await measureBaseline(server, p.calibrationSamples);
  st.baselines[options.serverLabel] = baseline;
  const needsLink = envs.some((e) => targetOf(e) !== null);
  let calibrated: CalibratedLink | undefined;
  if (needsLink) {
    st.emulator ??= await createEmulator(p.network);
    st.clientLink ??= await st.emulator.createLink({
      name: "client",
      serverHost: server.host,
      serverPort: server.port,
    });
    calibrated = new CalibratedLink(st.clientLink, server, p.calibrationSamples);
  }
  const admin = await connect(server);
  try {
    for (let repeat = 1; repeat <= p.repeats; repeat++) {
      for (const env of envs) {
        const target = targetOf(env);
        let connection = server;
        let clientRttMs = baseline;
        let link: DelayLink | undefined;
        if (target === null) await calibrated?.link.setOneWayDelay(0);
        if (target !== null && calibrated) {
          st.say(`setting the client link to ${target} ms for ${env}…`);
          const cal = await calibrated.calibrate(target, `${env} (${options.serverLabel})`);
          connection = calibrated.connectionFor(cal);
          clientRttMs = cal.achievedRttMs;
          link = cal.mode === "direct" ? undefined : calibrated.link;
        }
        const bench = await connect(connection);
        try {
          const session: Session = {
            bench,
            admin,
            lagAdmin: options.lagAdmin,
            rows: p.rows,
            clientRttMs,
            standbyRttMs: options.standbyRttMs,
            link,
          };
          // Cases rotate between repeats (recorded as `order`): drift within a repeat does not always land on the same case.
          for (const [order, c] of rotated(p.cases, repeat - 1).entries())
            await runCaseTrial(st.ctx, session, env, c, p.statements, repeat, order);
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

/** Phase 2: standbys over delayed links, quorum environments, then the synchronous_commit sweep. */
async function runQuorumPhase(
  st: State,
  primary: ReplicationPrimary,
  envs: readonly EnvironmentKey[],
  sweep: boolean,
  baseDir: string | undefined,
): Promise<void> {
  const p = st.p;
  st.emulator ??= await createEmulator(p.network);
  const emulator = st.emulator;
  const netem = emulator.kind === "netem";
  const baseline = await measureBaseline(primary.connection, p.calibrationSamples);
  const standbyLinks: CalibratedLink[] = [];
  let standbys: StartedServer[] = [];
  let admin: Client | undefined;
  let lagAdmin: Client | undefined;
  try {
    for (const [i, name] of STANDBY_NAMES.entries()) {
      const link = await emulator.createLink({
        name,
        serverHost: "127.0.0.1",
        serverPort: primary.connection.port,
        address: netem ? STANDBY_ADDRESSES[i] : undefined,
      });
      standbyLinks.push(new CalibratedLink(link, primary.connection, p.calibrationSamples));
    }
    const setStandbyRtt = async (targetMs: number): Promise<number> => {
      st.say(`setting both standby links to ${targetMs} ms…`);
      const achieved: number[] = [];
      for (const l of standbyLinks)
        achieved.push((await l.calibrate(targetMs, "primary ↔ standby", true)).achievedRttMs);
      return achieved.reduce((a, b) => a + b, 0) / achieved.length;
    };
    let standbyRtt = await setStandbyRtt(p.standbyRttMs);
    st.say("copying the primary's data directory into two standbys…");
    standbys = await primary.replication.startStandbys(
      standbyLinks.map((l, i) => ({ name: STANDBY_NAMES[i], upstreamHost: l.link.host, upstreamPort: l.link.port })),
      { baseDir },
    );
    st.servers.push(...standbys.map((s) => s.description));
    // Connected only now: making the standbys restarted the primary.
    admin = await connect(primary.connection);
    await admin.query(`ALTER SYSTEM SET synchronous_standby_names = '${QUORUM}'`);
    await admin.query("SELECT pg_reload_conf()");
    await waitForQuorum(admin);
    lagAdmin = await connect(primary.connection);
    if (envs.length)
      await runEnvironments(st, envs, primary.connection, {
        lagAdmin,
        standbyRttMs: standbyRtt,
        serverLabel: "primary with 2 standbys",
      });
    if (sweep) {
      // The sweep's client is direct (for netem, on the client link's address: set it to 0).
      await st.clientLink?.setOneWayDelay(0);
      await resetTable(admin, p.rows);
      const bench = await connect(primary.connection);
      try {
        for (let repeat = 1; repeat <= p.repeats; repeat++) {
          for (const rtt of p.sweepStandbyRttsMs) {
            standbyRtt = await setStandbyRtt(rtt);
            const session: Session = {
              bench,
              admin,
              lagAdmin,
              rows: p.rows,
              clientRttMs: baseline,
              standbyRttMs: standbyRtt,
            };
            for (const [order, level] of rotated(p.syncLevels, repeat - 1).entries()) {
              await runCommitLevelTrial(st.ctx, session, level, rtt, p.sweepCommits, repeat, order);
            }
          }
        }
      } finally {
        await closeAll([bench]);
      }
    }
  } finally {
    for (const l of standbyLinks) st.calibrations.push(...l.records);
    // No commit may wait for a standby that is going away.
    await admin?.query("ALTER SYSTEM RESET synchronous_standby_names").catch(ignored("reset sync standbys"));
    await admin?.query("SELECT pg_reload_conf()").catch(ignored("round-trips: pg_reload_conf()"));
    await closeAll([lagAdmin, admin]);
    for (const s of standbys) await s.stop().catch(ignored("round-trips: stop a standby"));
    for (const l of standbyLinks) await l.link.close().catch(ignored("round-trips: close a standby's delay link"));
  }
}

async function waitForQuorum(admin: Client, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await admin.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_replication WHERE sync_state = 'quorum'",
    );
    if (Number(rows[0].n) === STANDBY_NAMES.length) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the standbys did not become quorum-synchronous within ${timeoutMs} ms`);
}

function plannedTrials(p: RoundTripsParams, envCount: number, sweep: boolean): number {
  return p.repeats * (envCount * p.cases.length + (sweep ? p.sweepStandbyRttsMs.length * p.syncLevels.length : 0));
}

export async function runRoundTrips(p: RoundTripsParams, control: RunControl = {}): Promise<RoundTripsRun> {
  const own = control.signal === undefined;
  const signal = control.signal ?? interruptSignal();
  try {
    return await roundTrips(p, control, signal);
  } finally {
    if (own) endInterruptible(signal);
  }
}

async function roundTrips(p: RoundTripsParams, control: RunControl, signal: AbortSignal): Promise<RoundTripsRun> {
  const reaped = await reapOrphans();
  // The host's load before any server of ours starts (the same figures withSession records).
  const quietness: Quietness = { cpus: os.cpus().length, before: await sampleHost(1000) };
  const monitor = new HostMonitor();
  const store = RunStore.open<RoundTripCondition>({ notebook: NOTEBOOK, params: p, resumeId: control.resumeId });
  const progress = progressReporter("05 round trips");
  progress.update(0, 1, "deciding the target…");
  const decision = await decideTarget("postgresql", p.target);
  const external = decision.kind === "external";
  const skipped: { what: string; reason: string }[] = [];
  let single: EnvironmentKey[] = singleServerEnvironments(p.environments);
  let quorum: EnvironmentKey[] = quorumEnvironments(p.environments);
  let sweep = p.sweepStandbyRttsMs.length > 0 && p.syncLevels.length > 0;
  // Environments the user placed on real hosts: run there, not behind an emulated link.
  const hosted = (["same-az", "cross-az"] as const)
    .map((env) => ({ env, host: env === "same-az" ? p.hosts.sameAz : p.hosts.crossAz }))
    .filter((h): h is { env: "same-az" | "cross-az"; host: string } => h.host !== undefined && single.includes(h.env));
  single = single.filter((e) => !hosted.some((h) => h.env === e));
  if (external) {
    const emulated = p.environments.filter((e) => e !== "local");
    if (emulated.length)
      skipped.push({
        what: emulated.join(", "),
        reason: "an external server is measured as it is: no delays or standbys are emulated in front of it",
      });
    if (sweep) skipped.push({ what: "synchronous_commit sweep", reason: "it needs standbys the lab runs" });
    single = ["external"];
    quorum = [];
    sweep = false;
  }
  const total = plannedTrials(p, single.length + hosted.length + quorum.length, sweep);
  let done = 0;
  const finished = store.finishedKeys();
  const st: State = {
    p,
    calibrations: [],
    baselines: {},
    notes: reaped.length ? [`removed ${reaped.length} resource(s) left by an earlier, dead run`] : [],
    skipped,
    servers: [],
    say: (message) => progress.update(done, total, message),
    ctx: {
      store,
      finished,
      signal,
      continueOnError: control.continueOnError ?? false,
      onTrial: (trial, key) => {
        done++;
        const last =
          trial?.seconds !== undefined ? `${key}: ${trial.seconds.toFixed(2)} s` : `${key} (already on disk)`;
        progress.update(done, total, last);
      },
    },
  };
  const metadata = (): RunMetadata => ({
    runId: store.runId,
    notebook: NOTEBOOK,
    profile: control.profile ?? "custom",
    startedAt,
    host: hostInfo(),
    gitCommit: gitCommit(),
    servers: st.servers,
    params: p,
    // For lib/compare: while this process lives and finishedAt is absent, the run is in progress.
    owner: { pid: process.pid, host: os.hostname() },
    quietness,
    notes: [
      ...st.notes,
      ...(st.emulator ? [`links: ${st.emulator.reason}`] : []),
      ...st.skipped.map((s) => `not run here: ${s.what} — ${s.reason}`),
    ],
  });
  const startedAt = new Date().toISOString();
  store.writeMetadata(metadata());
  let primary: ReplicationPrimary | undefined;
  const stops: (() => Promise<void>)[] = [];
  let outcome: RunMetadata["outcome"] = "failed";
  try {
    const netemWanted = p.network !== "proxy" && !external;
    if (single.length) {
      st.say("starting the server…");
      const emulatorKind = netemWanted ? (st.emulator ??= await createEmulator(p.network)).kind : "proxy";
      const started = await startServers([{ engine: "postgresql", name: "05-pg", settings: serverSettings(false) }], {
        target: p.target,
        onProgress: (m) => st.say(m),
      });
      const server: StartedServer | undefined = started.servers.get("postgresql");
      if (!server) throw new Error("05: the PostgreSQL server did not start");
      st.notes.push(...started.notes);
      st.servers.push(server.description);
      quietness.selectOneBefore = await selectOneJitterOn(server.connection);
      // The phase-1 server becomes the primary only if the lab can make standbys of it, it is on
      // disk as asked, and it is reachable the way the links need (netem needs extra listen addresses).
      const reusable = emulatorKind === "proxy" && p.quorumStorage === "disk";
      if (canReplicate(server) && reusable && (quorum.length || sweep)) primary = server;
      else stops.push(() => started.stopAll());
      const reused = primary;
      if (reused) stops.push(() => reused.stop());
      store.writeMetadata(metadata());
      await runEnvironments(st, single, server.connection, {
        standbyRttMs: null,
        serverLabel: external ? "external server" : "server",
      });
      if (!primary) {
        await stops.pop()?.();
        if (st.clientLink) {
          await st.clientLink.close();
          st.clientLink = undefined;
        }
      }
    }
    for (const { env, host } of hosted) {
      st.say(`starting a server on ${host} for ${env}…`);
      const server = await new DockerTarget({
        endpoint: hostEndpoint(`hosts.${env === "same-az" ? "sameAz" : "crossAz"}`, host),
        onProgress: (m) => st.say(m),
      }).start({ engine: "postgresql", name: `05-${env}`, settings: serverSettings(false) });
      try {
        st.servers.push(server.description);
        store.writeMetadata(metadata());
        const label = `${env} on ${server.description.engineHost ?? host}`;
        await runEnvironments(st, [env], server.connection, { standbyRttMs: null, serverLabel: label, real: true });
        st.notes.push(
          `${env}: a real server on ${server.description.engineHost ?? host} (route ${server.description.route}), ` +
            `SELECT 1 round trip ${st.baselines[label].toFixed(3)} ms measured, not emulated`,
        );
      } finally {
        await server.stop().catch(() => undefined);
      }
    }
    if (quorum.length || sweep) {
      let baseDir: string | undefined;
      if (p.quorumStorage === "memory") {
        baseDir = memoryDirectory();
        st.notes.push(
          baseDir
            ? `the quorum environments' primary and standbys keep their data in memory (${baseDir}): a WAL flush costs ~nothing there, as on Aurora's storage nodes, so a commit's wait is the standbys' round trip (set quorumStorage: "disk" to add this disk's flushes)`
            : `quorumStorage "memory" asked for, but this machine has no /dev/shm: the quorum cluster's data is on disk, and every flush adds this disk's time`,
        );
      }
      if (!primary) {
        st.say("starting an embedded primary for the quorum environments…");
        try {
          const emulatorKind = (st.emulator ??= await createEmulator(p.network)).kind;
          const own = await new EmbeddedPostgresTarget({ baseDir }).start({
            engine: "postgresql",
            name: "05-primary",
            settings: serverSettings(emulatorKind === "netem"),
          });
          primary = own;
          stops.push(() => own.stop());
          st.servers.push(primary.description);
          st.notes.push(
            `the quorum environments ran on their own embedded PostgreSQL ${primary.description.version} primary: standbys are copies of its data directory, which only the embedded target gives access to`,
          );
        } catch (error) {
          skipped.push({
            what: `${quorum.join(", ")}${sweep ? " and the synchronous_commit sweep" : ""}`,
            reason: `no embedded PostgreSQL to make standbys from: ${redactText(String(error))}`,
          });
        }
      }
      if (primary) {
        store.writeMetadata(metadata());
        await runQuorumPhase(st, primary, quorum, sweep, baseDir);
      }
    }
    progress.finish(`${done} trials`);
    outcome = "finished";
    quietness.during = monitor.stop();
  } catch (error) {
    if (!signal.aborted) throw error;
    outcome = "interrupted";
    // A Stop: say what was kept (the finally below stops links and servers before this is seen).
    const message = interruptedMessage(store, total);
    progress.finish(message);
    throw new InterruptedError(message);
  } finally {
    if (st.clientLink) await st.clientLink.close().catch(ignored("round-trips: close the client's delay link"));
    for (const stop of stops.reverse()) await stop().catch(ignored("round-trips: stop an environment"));
    await st.emulator?.close().catch(ignored("round-trips: close the network emulator"));
    monitor.stop();
    store.writeMetadata({ ...metadata(), finishedAt: new Date().toISOString(), outcome });
  }
  store.writeSummary("calibration.json", {
    baselines: st.baselines,
    calibrations: st.calibrations,
    network: st.emulator ? { kind: st.emulator.kind, reason: st.emulator.reason } : null,
  });
  return {
    runId: store.runId,
    directory: store.directory,
    params: p,
    trials: store.trials() as RoundTripTrial[],
    metadata: metadata(),
    calibrations: st.calibrations,
    baselines: st.baselines,
    network: st.emulator
      ? { kind: st.emulator.kind, reason: st.emulator.reason }
      : { kind: "none", reason: external ? "external server: measured, not emulated" : "no link was needed" },
    skipped,
  };
}
