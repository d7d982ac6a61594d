/** Seed 003's claims, per set. Its 20–30 % is its rebuild ÷ its 30 s run: judged at its own protocol. */
import { absentUnless, absentWhen, atLeast, declare, exactly, readQuotes, when } from "../../stats/claim-engine";
import type { ClaimSpec } from "../../stats/claim-engine";
import { intervalText } from "../../stats/intervals";
import { f0, f1, f2, f3, percent as pct, times } from "../../stats/format";
import { medianOf, quotient } from "../../stats/claim-statistics";
import type { ReindexMode, ReindexUnderLoadParams as P } from "./params";
import { change } from "./present";
import * as S from "./summarise";

type Sum = S.ReindexSummary;
const Q = readQuotes(__dirname);
const ALL = ["scale", "runLength", "clients"] as const;
type Factor = (typeof ALL)[number] | "readsPlain" | "readsConcurrently";
const PROTOCOL_TEXT =
  "pgbench -i -s 100, pgbench -c 2 -T 30 (TPC-B-like), REINDEX of the three primary keys mid-run, restart between runs";
const SHARE_LOCK = "plain REINDEX holds a SHARE lock on the table, which blocks every UPDATE until it ends";
const WINDOW = "REINDEX runs whose window fell inside the load";
const pct1 = (x: number) => pct(x, 1);
const unless = absentUnless({ planned: (p: P) => p.modes, ran: (s: Sum) => s.runs.map((r) => r.mode) });
/** The median over sets of a value of each run of `mode` (plain REINDEX unless given). */
const median = (s: Sum, pick: S.RunValue, mode?: ReindexMode) => S.perRun(s, pick, "", mode)?.estimate;
const secs = (s: Sum, pick: S.RunValue, mode?: ReindexMode) => f1(median(s, pick, mode));
const stall = (s: Sum, mode?: ReindexMode) => median(s, S.stallShare, mode);
const LOST_OVER_STALL = "lost share ÷ the plain REINDEX's window share of the run, per set";
const BLOCKED = "share of the CONCURRENTLY window in which the REINDEX session blocked a write, per set";
const NO_PLAIN = "this run has no plain REINDEX mode";
const NO_CONCURRENTLY = "this run has no REINDEX CONCURRENTLY mode (or no plain one to compare with)";
const PLAIN = {
  regime: ALL,
  howToTest: "any profile with the plain REINDEX mode",
  absent: unless(["reindex"], NO_PLAIN),
};
const BOTH = {
  regime: ALL,
  regimeText: "not measured by the seed; tested at this run's scale and run length",
  howToTest: '`--set modes=["baseline","reindex","concurrently"]` or `--profile full` tests it',
  absent: unless(["concurrently", "reindex"], NO_CONCURRENTLY),
};

/** (r) and (rc): the longest wait for a read beside `mode`'s REINDEX, as a share of its window. */
const readsNotLocked = (
  mode: ReindexMode,
  c: Pick<ClaimSpec<P, Sum, Factor>, "id" | "claim" | "kind" | "regime" | "regimeText" | "mechanism" | "howToTest">,
): ClaimSpec<P, Sum, Factor> => {
  const run = mode === "reindex" ? "plain REINDEX" : "CONCURRENTLY";
  const med = (s: Sum, pick: S.RunValue) => median(s, pick, mode);
  return {
    ...c,
    sentence: Q.quote("readsNotLocked"),
    rule: { kind: "below", margin: 0.25 },
    reading:
      "'not locked' read as no read waiting a quarter of the window or more: a read held up by the lock waits out the accounts key's rebuild, most of the window, while reads that flow wait about one pause, at most a twentieth of the window in the regime",
    absent: absentWhen(
      `this run has no ${mode === "reindex" ? run : "REINDEX CONCURRENTLY"} run with the read probe on (the mode not run, \`readProbeMs\` 0, or runs stored before the probe)`,
      (p: P) => !p.modes.includes(mode) || !(p.readProbeMs > 0),
      (s: Sum) => !S.runsOf(s, mode).some((r) => r.readProbeMs !== undefined),
    ),
    statistic: `per ${run} run: the longest time the read probe (a primary-key lookup on pgbench_accounts, one at a time from its own session, \`readProbeMs\` apart) went without a completed read inside the REINDEX window ÷ the window's length; median over sets`,
    of: (s) => S.perRun(s, S.readWaitShare, `longest read wait ÷ the ${mode} window, per set`, mode),
    needs: `a ${run} run whose window the read probe read through`,
    fmt: pct1,
    why: (s) => {
      const errors = S.runsOf(s, mode).filter((r) => r.readProbeError).length;
      return (
        `reads started in the window: ${f0(med(s, (r) => r.readsInWindow))}; the longest wait for a read ${f3(med(s, (r) => r.longestReadWaitS))} s of a ${f3(med(s, (r) => r.readWindowS))} s window, the longest single read ${f1(med(s, (r) => r.readMaxInWindowMs))} ms against a median of ${f3(med(s, (r) => r.readMedianOutsideMs))} ms outside it; the accounts key took ${f2(med(s, (r) => r.accountsReindexSeconds))} s to rebuild (medians over sets)` +
        (errors ? `; the probe failed in ${errors} run(s) (the run's notes say how)` : "") +
        "."
      );
    },
  };
};
/** Reads that flow leave gaps of about one pause: at ≥ 20 pauses a window, at most a fifth of (r)'s margin. */
const reads = (what: string) => atLeast(what, 20, "", { condition: true, source: "enough reads to see a wait:" });

export const CLAIMS = declare<P, Sum, Factor>({
  notebook: "04-reindex-under-load",
  quotes: Q,
  // The seed's 2 clients on 2 CPUs both wait on the one lock; more clients than CPUs change the TPS outside it too.
  factors: {
    scale: exactly("pgbench scale", 100),
    runLength: exactly("run length", 30, "s"),
    clients: exactly("clients", 2),
    readsPlain: reads("plain REINDEX window ÷ read probe pause"),
    readsConcurrently: reads("CONCURRENTLY window ÷ read probe pause"),
  },
  before: (p) => ({ scale: p.scale, runLength: p.durationSeconds, clients: p.clients }),
  after: (s) => ({
    scale: s.scale,
    runLength: s.durationSeconds,
    clients: s.clients,
    readsPlain: median(s, S.readsPerWindow, "reindex"),
    readsConcurrently: median(s, S.readsPerWindow, "concurrently"),
  }),
  claims: [
    {
      id: "1",
      claim: "TPS drops 20–30 % when the pgbench primary keys are reindexed during a 30 s run at scale 100",
      sentence: Q.quote("drop"),
      kind: "magnitude",
      rule: { kind: "inside", low: 0.15, high: 0.35 },
      reading: "the seed's 20–30 % widened by 5 points each side",
      ...PLAIN,
      regimeText: `${PROTOCOL_TEXT}. The figure is the seed's rebuild seconds ÷ its 30 s run (≈ 7.6 s stalled, 25 %; sets 2, 3: 20 %, 22 %): another machine's rebuild makes another share, so only the seed's own protocol tests it`,
      howToTest: "`--profile full` runs the seed's protocol (scale 100, 30 s runs, 2 clients)",
      statistic:
        "within each REINDEX run: transactions the REINDEX window cost (the rate outside the window × its length − those done inside), as a share of the run; one value per set, median over sets (the between-run TPS ratio is shown beside it: this machine changes speed between runs)",
      of: (s) => S.perRun(s, (r) => r.lostShare, "share of the run's transactions lost in the reindex window, per set"),
      needs: WINDOW,
      fmt: pct1,
      ours: (s) =>
        `the plain REINDEX's window was ${pct(stall(s))} of the ${s.durationSeconds} s run (the seed's ≈ 25 % of 30 s)${when(S.modeSummary(s, "reindex")?.tpsRatio, (b) => `; between runs TPS ${intervalText(b, (x) => change(x, 0))} against the set's baseline`)}`,
      why: (s) =>
        `all ${s.clients} clients stood blocked for ${secs(s, (r) => r.allBlockedSeconds)} s of ${s.durationSeconds} s (median over sets); the accounts key took ${secs(s, (r) => r.accountsReindexSeconds)} s to rebuild: the drop is about the share of the run the rebuild lasts.`,
    },
    {
      id: "1m",
      claim:
        "While a plain REINDEX runs, writes stop: the transactions lost are the share of the run the REINDEX lasts",
      sentence: Q.quote("plainLocks"),
      kind: "mechanism",
      rule: { kind: "inside", low: 0.8, high: 1.25 },
      ...PLAIN,
      regimeText: "any scale and run length: a run whose REINDEX window lies inside the load",
      mechanism: `${SHARE_LOCK}; every TPC-B transaction updates all three tables, so no transaction completes in the window`,
      statistic:
        "per REINDEX run: the share of its transactions lost in the window ÷ the window's share of the run (= 1 − TPS inside ÷ TPS outside, so at most 1: the band's top is never the deciding edge); median over sets",
      of: (s) => S.perRun(s, (r) => quotient(r.lostShare, S.stallShare(r, s)), LOST_OVER_STALL),
      needs: WINDOW,
      why: (s) =>
        `during the window pgbench kept ${pct(S.modeSummary(s, "reindex")?.duringOutside?.median)} of the TPS it had outside it (median)${when(S.runsOf(s, "reindex").find((r) => r.topLock)?.topLock, (l) => `; the lock it waited for most: "${l}"`)}; pg_blocking_pids named the REINDEX session for ${secs(s, (r) => r.blockedByReindexSeconds)} s.`,
    },
    {
      id: "2",
      claim: "The UPDATE on pgbench_accounts gets several times slower (per-statement latency, pgbench -r)",
      sentence: Q.quote("updateLatency"),
      kind: "derived",
      derivedFrom:
        "(1m)'s stall share and the transaction ÷ UPDATE latency: added = clients × stall ÷ transactions, so the multiple is 1 + stall share × (transaction ÷ UPDATE latency), an identity",
      ...PLAIN,
      regimeText: PROTOCOL_TEXT,
      statistic:
        "within each REINDEX run: (its unblocked UPDATE latency + its lock waits on pgbench_accounts ÷ its UPDATEs) ÷ its unblocked latency; median over sets",
      of: S.updateWithinRun,
      needs: "pgbench -r statement latencies and lock samples of a REINDEX run",
      arithmetic: (s) => {
        const share = stall(s);
        const txOverU = median(s, (r) => quotient(r.latencyAvgMs, r.updateUnblockedMs));
        const multiple = share !== undefined && txOverU !== undefined ? 1 + share * txOverU : undefined;
        return `1 + stall share ${pct(share)} × transaction ÷ unblocked UPDATE latency ${f1(txOverU)} = ×${f2(multiple)}${when(S.updateWithinRun(s), (m) => ` (measured ${intervalText(m, times)})`)}; the seed's set 1: 1 + 25 % × 2.226 ÷ 0.125 = ×5.5`;
      },
    },
    {
      id: "3a",
      claim: "REINDEX CONCURRENTLY (the seed's suggested remedy) costs less throughput than plain REINDEX",
      sentence: Q.quote("remedy"),
      kind: "direction",
      rule: { kind: "below", margin: 0 },
      ...BOTH,
      regimeText: `${PROTOCOL_TEXT}, where the seed suggests the remedy`,
      howToTest: "`--profile full` runs the seed's protocol with all three modes",
      signSetBy:
        "the share of the run the plain REINDEX stalls (this machine's rebuild ÷ the run's length) against what CONCURRENTLY's extra scans take from the load on the same CPUs and disk",
      mechanism: `${SHARE_LOCK}; CONCURRENTLY takes SHARE UPDATE EXCLUSIVE, which blocks no write (3m), but scans the table twice beside the load`,
      statistic:
        "per set, the within-run share of transactions lost to the CONCURRENTLY window minus that lost to the plain REINDEX window (percentage points); median over sets",
      of: S.lostDifference,
      needs: "a REINDEX and a CONCURRENTLY run in the same set",
      fmt: (x) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)} points`,
      why: (s) =>
        `the plain REINDEX's window was ${pct(stall(s))} of the ${s.durationSeconds} s run (the seed's ≈ 25 % of 30 s), CONCURRENTLY's ${pct(stall(s, "concurrently"))}; pgbench waited on locks for ${secs(s, (r) => r.blockedSeconds, "concurrently")} s with CONCURRENTLY vs ${secs(s, (r) => r.blockedSeconds)} s with plain REINDEX (medians); ${S.runsOf(s, "concurrently").filter((r) => r.reindexOutlastedLoad).length} CONCURRENTLY run(s) outlasted the load (their window is cut at the run's end).`,
    },
    {
      id: "3m",
      claim: "REINDEX CONCURRENTLY blocks no write: no pgbench session waits on the REINDEX while it runs",
      sentence: Q.quote("remedy"),
      kind: "mechanism",
      rule: { kind: "below", margin: 0.1 },
      reading:
        "'no write blocked' read as blocked by the REINDEX for under a tenth of its window (a plain REINDEX blocks all of it, ≈ 1; a tenth leaves one lock sample in a window of 2 s)",
      ...BOTH,
      regimeText: "any scale and run length: a CONCURRENTLY run whose window lies inside the load",
      mechanism:
        "CONCURRENTLY takes SHARE UPDATE EXCLUSIVE on the table, which conflicts with no INSERT, UPDATE or DELETE; it waits for older transactions itself rather than making writers wait",
      statistic:
        "per CONCURRENTLY run: the seconds pg_blocking_pids named the REINDEX session as blocking a pgbench session ÷ the seconds its window lay inside the load; median over sets",
      of: (s) => S.perRun(s, S.blockedShare, BLOCKED, "concurrently"),
      needs: "a CONCURRENTLY run with its lock samples",
      fmt: pct1,
      why: (s) =>
        `pg_blocking_pids named the REINDEX session for ${secs(s, (r) => r.blockedByReindexSeconds, "concurrently")} s of a ${secs(s, S.windowSeconds, "concurrently")} s CONCURRENTLY window; with plain REINDEX, for ${pct(median(s, S.blockedShare))} of its window (medians over sets; lock samples are counted at their spacing, so a share can read one sample past 100 %).`,
    },
    {
      id: "3b",
      claim: "REINDEX CONCURRENTLY takes longer than plain REINDEX",
      sentence: { original: "none in the seed: the manual describes CONCURRENTLY's extra scans and waits" },
      figure: "not measured by the seed",
      kind: "direction",
      rule: { kind: "above", margin: 1 },
      ...BOTH,
      mechanism:
        "CONCURRENTLY builds a new index in two scans of the table and waits for every transaction that could see the old one, work plain REINDEX does not do, at any size",
      statistic:
        "per set, seconds to rebuild the three indexes with CONCURRENTLY ÷ with plain REINDEX; median over sets (every set counts; a set whose two runs' write-path probes differ by more than ×1.25 is named in the why)",
      of: (s) => medianOf(S.rebuildPairs(s).kept, (p) => p.ratio, "rebuild seconds CONCURRENTLY ÷ REINDEX, per set"),
      needs: "a finished REINDEX and CONCURRENTLY in the same set",
      why: (s) =>
        `rebuild ${secs(s, (r) => r.reindexSeconds)} s vs ${secs(s, (r) => r.reindexSeconds, "concurrently")} s (medians, all three indexes)${when(
          S.rebuildPairs(s)
            .split.map((e) => e.label)
            .join(", "),
          (l) => `; sets whose two runs' probes split (×1.25): ${l}`,
        )}.`,
    },
    readsNotLocked("reindex", {
      id: "r",
      claim: "While a plain REINDEX runs, reads of the table are not locked",
      kind: "direction",
      regime: ["readsPlain"],
      regimeText:
        "any scale and run length: a plain REINDEX run whose window lies inside the load, with a read-only client reading beside it",
      mechanism:
        "the seed's (the manual's): plain REINDEX holds a SHARE lock on the table, which conflicts with writes' ROW EXCLUSIVE and not with a read's ACCESS SHARE; against it, the manual's REINDEX page: it also holds ACCESS EXCLUSIVE on the index it rebuilds, which blocks reads that use that index",
      howToTest:
        "any profile with the plain REINDEX mode and `readProbeMs` > 0, whose plain window holds ≥ 20 pauses (a larger scale, or a shorter pause)",
    }),
    readsNotLocked("concurrently", {
      id: "rc",
      claim: "REINDEX CONCURRENTLY does not block reads: no read waits on it while it runs",
      kind: "mechanism",
      regime: ["readsConcurrently"],
      regimeText:
        "any scale and run length: a CONCURRENTLY run whose window lies inside the load, with a read-only client reading beside it",
      mechanism:
        "CONCURRENTLY takes SHARE UPDATE EXCLUSIVE locks, which a read's ACCESS SHARE does not conflict with, and builds the new index beside the old one, which reads go on using until the swap",
      howToTest:
        "any profile with the CONCURRENTLY mode and `readProbeMs` > 0, whose CONCURRENTLY window holds ≥ 20 pauses",
    }),
  ],
});
