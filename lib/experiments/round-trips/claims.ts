/** Seed 004's claims (EXPERIMENTS.md §5); on an emulated input, `emulated`: never evidence. */
import { absentUnless, absentWhen, declare, factor, from, readQuotes, textsFrom, when } from "../../stats/claim-engine";
import { f0, f1, f2, ms } from "../../stats/format";
import { intervalText } from "../../stats/intervals";
import { QUORUM } from "./workload/environments";
import { hostKey, isExternal, type RoundTripsParams as P } from "./params";
import type { EnvironmentKey } from "./workload/trials";
import { seedCommitMs, seedValue, type SeedCondition, type SeedSeries } from "./seed";
import * as sum from "./summarise";
import { findEnvironment, type EnvironmentSummary as E, type RoundTripsSummary as S } from "./summarise";

const Q = readQuotes(__dirname);
type Factor = "localRtt" | "rttSame" | "rttCross" | "rttExternal";
const lag = (x: number | null | undefined) => when(x, ms) || "not caught (every sample found the standbys idle)";
const seedS = (series: SeedSeries, c: SeedCondition) => seedValue(series, c) ?? NaN;
/** Not run unless planned (an external server runs only "external") and in the summary. */
const unless = absentUnless<P, S, EnvironmentKey>({
  planned: (p) => (isExternal(p) ? ["external"] : p.environments),
  ran: (s) => s.environments.map((e) => e.environment),
});

const STANDBYS = "emulated: two standbys on this machine behind delayed links, in place of Aurora's storage quorum";
/** The client's links, this run's inputs unless real hosts are named: `canShow`, what the emulation can show. */
const links = (canShow: string, emulatedWhen: (s: S) => string | undefined) => ({
  emulates: `emulated: the client's round trips, a delay this lab sets on the link (netem, else a user-space delay proxy); it can show that ${canShow}`,
  emulatedWhen,
  emulatedBefore: (p: P) =>
    p.hosts.sameAz && p.hosts.crossAz
      ? undefined
      : "the same-AZ and cross-AZ round trips are this run's inputs (emulated links)",
});
const AURORA = "Aurora PostgreSQL 17.6 (db.r6g.large), client on EC2, 10,000 statements per case through psql, 5 runs";
const DOCKER =
  "Docker postgres:17 on macOS, the client through the Docker VM: a 0.93 ms round trip (9.26 s for 10,000 × SELECT 1)";
/** "About the same", "nearly match", "about one round trip": within ×0.8–×1.25. */
const ABOUT = { kind: "inside", low: 0.8, high: 1.25 } as const;
/** (b) and (e no replica): the local environment against the seed's Docker. */
const LOCAL = {
  kind: "magnitude",
  regime: ["localRtt"],
  absent: unless(["local"], "this run had no local (loopback) environment"),
} as const;

const storageText = ({ storage: d }: S) =>
  d?.fsType === "tmpfs"
    ? " The data directory is on tmpfs: no commit here waits for a disk."
    : d?.fsyncMs !== undefined
      ? ` Its disk (${d.fsType} on ${d.device}) took ${ms(d.fsyncMs)} per 8 KiB write + fdatasync at start.`
      : "";
const per10k = (e: E) => `${f2(e.autocommit?.secondsPer10k)} s vs ${f2(e.oneTransaction?.secondsPer10k)} s per 10,000`;
const ratioStatistic = (env: EnvironmentKey) => ({
  statistic:
    "autocommit ÷ one-transaction elapsed time, one ratio per repeat (paired, order rotated), exact interval of the median",
  of: (s: S) => findEnvironment(s, env)?.ratio,
  needs: `update_autocommit and update_one_transaction in the ${env} environment`,
});
const transactions = (env: EnvironmentKey, where: string) => ({
  id: `c (${where})`,
  sentence: Q.quote(`transactions (${where})`),
  kind: "magnitude" as const,
  rule: { kind: "above", margin: 1.5 } as const,
  ...ratioStatistic(env),
});
/** A client round trip: ×0.5 to ×`upTo` the seed's SELECT 1 round trip. */
const rtt = (what: string, c: SeedCondition, upTo = 2) => factor(what, seedS("rtt_select1", c), [0.5, upTo], "ms");

function quorumClaims(env: EnvironmentKey, where: string, c: "same_az" | "cross_az", gate: Factor) {
  const seed = (series: SeedSeries) => seedS(series, c);
  const common = {
    kind: "magnitude" as const,
    regime: [gate],
    regimeText: `${AURORA}; Aurora commits on a 4-of-6 storage quorum across three AZs; here, a ${where} client, a primary and two standbys, ${QUORUM}`,
    howToTest: `environments including "${env}" runs it; only a real server (hosts, or an external target) makes it evidence`,
    absent: unless([env], `this run had no ${env} environment`),
    ...textsFrom(sum.updated(env), {
      ours: (q) =>
        `${per10k(q)}; gap per commit ${q.commitInterval ? intervalText(q.commitInterval, ms) : ms(q.commitMs)}, the server's account ${ms(sum.serverCommitMs(q))} (WAL flush ${ms(q.walSyncMsPerCommit)} + flush lag ${lag(q.flushLagMs)}), a statement ${ms(sum.statementMs(q))}; commit ÷ statement ${f2(sum.commitShare(q))} (the seed's ${f2(seed("aurora_commit_latency_seconds") / seed("update_one_transaction_seconds"))})`,
      why: (q) =>
        `synchronous_standby_names = '${QUORUM}', standbys ${ms(q.standbyRttMs)} away: pg_stat_wal counted ${f2(q.walSyncsPerCommit)} WAL syncs per autocommit statement at ${ms(q.walSyncMsPerCommit)} each, and the fastest standby's flush lag was ${lag(q.flushLagMs)} (pg_stat_replication); the one transaction synced ${f0(q.oneTransaction.walSyncs)} time(s) over ${q.oneTransaction.statements.toLocaleString("en-US")} statements of ${ms(sum.statementMs(q))}.`,
    }),
    emulates: `${STANDBYS}; it can show that a commit waits for the standbys' acknowledgement, not what Aurora's storage quorum costs`,
    emulatedWhen: (s: S) =>
      findEnvironment(s, env)?.kind === "emulated"
        ? `the standbys' round trip is this run's input (${ms(s.params.standbyRttMs, 2)} set)`
        : undefined,
    emulatedBefore: (p: P) =>
      p.hosts[hostKey(env)] ? undefined : "the standbys' round trip is this run's input (emulated standbys)",
  };
  return [
    {
      ...common,
      ...transactions(env, where),
      claim: `With a durable replicated commit (${where} client), autocommit ≫ one transaction`,
      // Gated by the round trip only: a gate on commit ÷ statement would decide the ratio by arithmetic.
      reading: `"≫" read as at least 1.5× (the seed's ${f1(seed("update_autocommit_seconds") / seed("update_one_transaction_seconds"))}×); a magnitude: the ratio is ≈ 1 + commit ÷ statement, so it holds only where a commit outweighs half a statement`,
    },
    {
      ...common,
      id: `c share (${where})`,
      claim: `Commit time accounts for the a − b gap (${where} client): the server's commit account ≈ the gap per commit`,
      sentence: Q.quote(`commitGap (${where})`),
      rule: ABOUT,
      reading: '"nearly match" read as within ×0.8–×1.25',
      statistic:
        "the server's commit account per commit (pg_stat_wal flush time per commit + the fastest standby's flush lag) ÷ the gap per commit (a − b) / N, on the gap's per-repeat interval",
      of: sum.shareOf(env),
      needs: "the gap per commit and pg_stat_wal's sync time in this environment",
    },
  ];
}

export const CLAIMS = declare<P, S, Factor>({
  notebook: "05-round-trips",
  quotes: Q,
  fmt: f2,
  factors: {
    localRtt: rtt("round trip", "local"),
    rttSame: rtt("client round trip (same AZ)", "same_az"),
    rttCross: rtt("client round trip (other AZ)", "cross_az"),
    // Either Aurora placement's client, 0.1 to 3.4 ms.
    rttExternal: rtt("client round trip (external)", "same_az", 17),
  },
  // The local environment is a direct loopback: tens of µs where client and server share a kernel.
  before: (p) => ({
    localRtt: p.target === "external" ? undefined : 0.05,
    rttSame: p.sameAzRttMs,
    rttCross: p.crossAzRttMs,
  }),
  after: (s) => ({
    localRtt: findEnvironment(s, "local")?.rttMs,
    rttSame: sum.clientRtt(findEnvironment(s, "quorum-same-az")),
    rttCross: sum.clientRtt(findEnvironment(s, "quorum-cross-az")),
    rttExternal: sum.clientRtt(findEnvironment(s, "external")),
  }),
  claims: [
    {
      id: "a",
      claim: "A client in the server's AZ has a far shorter round trip than one in another AZ",
      sentence: Q.quote("rtt"),
      kind: "magnitude",
      rule: { kind: "above", margin: 4 },
      reading: '"far shorter" read as at least 4× (the seed\'s 8.5×)',
      regimeText: `${AURORA}; same AZ vs another AZ`,
      absent: absentWhen(
        "needs the same-az and cross-az environments (an external server runs alone)",
        (p: P) => isExternal(p) || !p.environments.includes("same-az") || !p.environments.includes("cross-az"),
      ),
      howToTest: "two real client hosts, one in the server's AZ and one in another (hosts.sameAz, hosts.crossAz)",
      ...links("the link adds what was set, nothing about AWS's network", (s) =>
        findEnvironment(s, "same-az")?.kind === "emulated" || findEnvironment(s, "cross-az")?.kind === "emulated"
          ? `the round trips are this run's inputs (${s.network.kind} links)`
          : undefined,
      ),
      statistic:
        "cross-AZ ÷ same-AZ SELECT 1 time (elapsed / N), one ratio per repeat (paired), exact interval of the median",
      of: sum.crossOverSame,
      needs: "the select1 case in the same-az and cross-az environments",
      ours: (s) =>
        `${ms(sum.selectOne(s, "same-az")?.msPerRoundTrip)} vs ${ms(sum.selectOne(s, "cross-az")?.msPerRoundTrip)} per SELECT 1`,
      why: (s) => {
        const [x, y] = [findEnvironment(s, "same-az"), findEnvironment(s, "cross-az")];
        return x && y
          ? `Targets ${ms(x.targetRttMs, 2)} and ${ms(y.targetRttMs, 2)} (${s.network.kind}); measured ${ms(x.rttMs)} and ${ms(y.rttMs)}.`
          : "";
      },
    },
    {
      ...LOCAL,
      id: "b",
      claim: "Locally, committing each UPDATE costs about the same as one transaction for all",
      sentence: Q.quote("localCommits"),
      rule: ABOUT,
      reading: '"about the same" read as ×0.8–×1.25',
      // Gated by the round trip only: a gate on commit ÷ round trip would decide the ratio by arithmetic.
      regimeText: DOCKER,
      howToTest:
        "a real client host 0.47–1.86 ms from the server decides it on that server's commit (an emulated link would make the round trip an input)",
      ...ratioStatistic("local"),
      ...textsFrom(sum.updated("local"), {
        ours: (l) =>
          `${per10k(l)}; gap per commit ${ms(l.commitMs)} ÷ round trip ${ms(l.rttMs)} = ${f2((l.commitMs ?? NaN) / (l.rttMs ?? NaN))} (the seed's ${f2((seedCommitMs("local") ?? NaN) / seedS("rtt_select1", "local"))})`,
        why: (l, s) =>
          `Each autocommit UPDATE flushed WAL: ${f2(l.walSyncsPerCommit)} syncs per statement at ${ms(l.walSyncMsPerCommit)} each (pg_stat_wal); the one transaction flushed ${f0(l.oneTransaction.walSyncs)} time(s).${storageText(s)}`,
      }),
    },
    ...quorumClaims("quorum-same-az", "same AZ", "same_az", "rttSame"),
    ...quorumClaims("quorum-cross-az", "other AZ", "cross_az", "rttCross"),
    {
      ...transactions("external", "external"),
      claim: "On the real server measured (whichever it is, not Aurora), autocommit ≫ one transaction",
      reading: '"≫" read as at least 1.5×; counted as evidence about the server that ran, never about Aurora',
      regime: ["rttExternal"],
      regimeText: "the measured server, its client 0.1–3.4 ms away, the span of the seed's two placements",
      howToTest: "DBLAB_POSTGRES_URI=postgresql://… (target external) measures one as it is",
      absent: unless(["external"], "this run measured no external server"),
      ...textsFrom(sum.updated("external"), {
        ours: (x) =>
          `${per10k(x)}; ${ms(x.commitMs)} a commit at a ${ms(x.rttMs)} round trip; commit ÷ statement ${f2(sum.commitShare(x))}`,
        why: (x) =>
          `Measured, not emulated. pg_stat_wal: ${f2(x.walSyncsPerCommit)} WAL syncs per statement${x.walSyncMsPerCommit !== undefined ? `, ${ms(x.walSyncMsPerCommit)} each` : " (no WAL sync time reported)"}.`,
      }),
    },
    {
      id: "d",
      claim: "Elapsed time grows with the round trip at a slope equal to the case's round trips",
      sentence: {
        original: "none in prose: the lab's derivation from the seed's table, (17.72 − 2.84) s ÷ (1.70 − 0.20) ms",
      },
      figure: "~9,920 ms per ms of round trip for 10,002 round trips (0.99)",
      kind: "direction",
      rule: { kind: "inside", low: 0.85, high: 1.15 },
      regimeText: `${AURORA}; two client placements (0.20 and 1.70 ms)`,
      mechanism:
        "each statement is one round trip through psql, so elapsed = round trips × RTT + server time, and the slope against RTT is the number of round trips at any RTT",
      howToTest: "two single-server environments with different round trips",
      ...links("each statement pays one round trip of the link, not AWS's round trips", (s) =>
        sum.slopes(s)?.envs.some((e) => e.kind === "emulated") ? "the round trips are this run's inputs" : undefined,
      ),
      absent: absentWhen(
        "needs two single-server environments (an external server runs alone)",
        (p: P) => isExternal(p) || p.environments.filter((e) => !e.startsWith("quorum")).length < 2,
      ),
      statistic:
        "per repeat, the least-squares slope of the one-transaction case's elapsed time against each single-server environment's SELECT 1 time, ÷ the case's round trips; exact interval of the median",
      of: sum.slopeInterval,
      needs: "at least two single-server environments with different round trips",
      ours: from(sum.slopes, (x) => `environments: ${x.envs.map((e) => e.environment).join(", ")}`),
      why: (s) =>
        (sum.slopes(s)?.envs ?? [])
          .map((e) => {
            const [x, st] = [sum.selectOne(s, e.environment), sum.statementMs(e)];
            return `${e.environment}: a statement ${ms(st)} at a ${ms(x?.msPerRoundTrip)} round trip, ${ms(st !== undefined && x ? st - x.msPerRoundTrip : undefined)} of server time, ${f0(e.oneTransaction?.walSyncs)} WAL sync(s) in the transaction`;
          })
          .join("; "),
    },
    {
      id: "e",
      claim:
        "A synchronous standby adds about one standby round trip to each commit, on one machine as in the cloud: " +
        "against the seed's sentence as worded, the commit overhead is reproduced locally once a standby is emulated",
      sentence: Q.quote("notReproducedLocally"),
      kind: "mechanism",
      rule: ABOUT,
      reading:
        "about one standby round trip read as ×0.8–×1.25 of it; held contradicts the seed's sentence, did not hold supports it",
      regimeText: "one machine, two standbys behind emulated links, synchronous_commit on vs local (else off)",
      mechanism:
        "with synchronous_commit = on a commit waits until a standby reports the WAL flushed, one standby round trip after it is sent; local waits for no standby",
      howToTest: "the synchronous_commit sweep (sweepStandbyRttsMs, syncLevels)",
      // Judged, not `emulated`: the emulated standby is this claim's subject.
      emulates:
        `${STANDBYS}, the subject of this check; it can show that one machine reproduces a synchronous ` +
        "standby's wait (held contradicts the seed's sentence as worded), not Aurora's ~2 ms, whose size here is the delay set",
      absent: absentWhen(
        "this run has no sweep with levels on and local (or off)",
        (p: P) => !p.sweepStandbyRttsMs.length || !p.syncLevels.length || isExternal(p),
        (s: S) => !sum.sweepPair(s),
      ),
      statistic:
        "(on − local, else off) median commit time per repeat at the largest standby round trip swept, ÷ that round trip, paired per repeat; exact interval of the median",
      of: sum.standbyOverhead,
      needs: "the synchronous_commit sweep with level on and local (or off)",
      ...textsFrom(sum.sweepPair, {
        ours: (x) =>
          `standbys ${ms(x.on.standbyRttMs)} away: ${ms(x.on.commitMs)} a commit (on) vs ${ms(x.local.commitMs)} (${x.base})`,
        why: (x) =>
          `The fastest standby's flush lag at that round trip: ${lag(x.on.flushLagMs)}; local WAL flush ${ms(x.on.walSyncMsPerCommit)} vs ${ms(x.local.walSyncMsPerCommit)} per commit.`,
      }),
    },
    {
      ...LOCAL,
      id: "e (no replica)",
      claim: "A local commit with no replica costs far less than Aurora's ~2 ms",
      sentence: Q.quote("commitCost"),
      rule: { kind: "below", margin: 0.5 },
      reading: '"far less" read as at least 4× below ~2 ms',
      regimeText: `${DOCKER}; no replica`,
      howToTest: "a real client host 0.47–1.86 ms from a server with no standby",
      statistic: "the local environment's gap per commit (a − b) / N, per repeat, exact interval of the median",
      of: (s: S) => findEnvironment(s, "local")?.commitInterval,
      needs: "update_autocommit and update_one_transaction in the local environment",
      fmt: ms,
      why: from(
        (s: S) => findEnvironment(s, "local"),
        (l, s) => `pg_stat_wal: ${ms(l.walSyncMsPerCommit)} of WAL flush per commit.${storageText(s)}`,
      ),
    },
  ],
});
