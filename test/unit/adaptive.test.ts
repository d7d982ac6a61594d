/**
 * The adaptive designs' one step (lib/stats/adaptive.ts) at its margins: the budget exactly
 * reached, maxRepeats reached, a decided claim, an undecided one, with and without a pace.
 * Each design's wording: test/unit/over-indexing-adaptive.test.ts (03), reindex-under-load-claims (04).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  informativeRounds,
  nextInformativeRound,
  nextRound,
  plannedRoundFits,
  type RoundState,
} from "../../lib/stats/adaptive";
import { addRounds, runAdaptiveRounds } from "../../lib/experiments/adaptive-rounds";

/** 01's design: no pace, rounds added until the budget is spent. */
const spend: RoundState = {
  done: 3,
  planned: 3,
  maxRepeats: 6,
  elapsedSeconds: 100,
  budgetSeconds: 300,
  undecided: ["a (postgresql)"],
  decided: "the headline claims were decided",
  words: { one: "repeat", many: "repeats", cap: "maxRepeats" },
};

/** 03/04's design: a round only if the rounds a verdict needs fit at the pace so far. */
const paced: RoundState = {
  ...spend,
  undecided: ["claim (2)"],
  decided: "(1) held, (2) held",
  words: { one: "round", many: "rounds", cap: "maxRepeats" },
  secondsPerRound: 50,
  needed: 5,
};

test("an undecided claim continues while the budget and the cap allow", () => {
  assert.equal(nextRound(spend).more, true);
  // 2 more rounds needed at 50 s: 100 + 100 = 200 ≤ 300.
  assert.equal(nextRound(paced).more, true);
  assert.match(nextRound(paced).reason, /claim \(2\) inconclusive after 3 rounds: 2 more fit/);
});

test("a decided claim stops it, after the planned rounds or after the added ones", () => {
  assert.deepEqual(nextRound({ ...spend, undecided: [] }), {
    more: false,
    reason: "the headline claims were decided after the planned repeats",
  });
  assert.deepEqual(nextRound({ ...paced, undecided: [], done: 4 }), {
    more: false,
    reason: "(1) held, (2) held after 4 rounds",
  });
  // Decided stops even with budget and cap to spare, and even past the cap.
  assert.equal(nextRound({ ...paced, undecided: [], done: 9, elapsedSeconds: 0 }).more, false);
});

test("maxRepeats reached stops it; so does a cap below the next n at which the interval can move", () => {
  assert.deepEqual(nextRound({ ...spend, done: 6 }), {
    more: false,
    reason: "a (postgresql) still inconclusive at maxRepeats = 6 (looked at n = 3, 5)",
  });
  // At 5 the next informative n is 8: a cap of 6 or 7 can only widen the range, so nothing is added.
  const capped = nextRound({ ...spend, done: 5 });
  assert.equal(capped.more, false);
  assert.match(
    capped.reason,
    /the next n at which the exact interval of the median can move is 8, above maxRepeats = 6/,
  );
  assert.equal(nextRound({ ...spend, done: 5, maxRepeats: 8 }).more, true);
  assert.equal(nextRound({ ...paced, done: 6 }).more, false);
  assert.equal(nextRound({ ...paced, done: 5, maxRepeats: 8, elapsedSeconds: 0 }).more, true);
});

test("informative rounds: 5, 8, 11, … at 90 %; from 5 the design goes to 8 and says it looked at 5 and 8", () => {
  assert.deepEqual(informativeRounds(0.9, 20), [5, 8, 11, 13, 16, 18]);
  assert.equal(nextInformativeRound(5), 8);
  assert.equal(nextInformativeRound(6), 8);
  assert.equal(nextInformativeRound(3), 5);
  const from5 = { ...paced, planned: 5, done: 5, maxRepeats: 9, elapsedSeconds: 0 };
  assert.match(nextRound(from5).reason, /3 more fit in the time budget \(to n = 8\)/);
  // Rounds 6 and 7 are on the way to 8, not looks: at 6 still undecided, it goes on to 8.
  assert.match(nextRound({ ...from5, done: 6 }).reason, /2 more fit .*to n = 8/);
  assert.equal(
    nextRound({ ...from5, done: 8, undecided: [] }).reason,
    "(1) held, (2) held after 8 rounds (looked at n = 5, 8)",
  );
});

test("the budget exactly reached: spent stops it without a pace; with a pace, exactly fitting goes on", () => {
  assert.deepEqual(nextRound({ ...spend, elapsedSeconds: 300 }), {
    more: false,
    reason: "a (postgresql) still inconclusive when the time budget (300 s) was spent, after 3 repeats",
  });
  assert.equal(nextRound({ ...spend, elapsedSeconds: 299.9 }).more, true);
  // 2 more at 50 s from 200 s ends exactly at the 300 s budget: allowed; a second later is not.
  assert.equal(nextRound({ ...paced, elapsedSeconds: 200 }).more, true);
  assert.deepEqual(nextRound({ ...paced, elapsedSeconds: 201 }), {
    more: false,
    reason:
      "claim (2) still inconclusive after 3 round(s): 2 more (to n = 5, where the interval can move) at ~50 s a " +
      "round would pass the time budget (300 s)",
  });
  // With 5 rounds run, the 3 to n = 8 are what has to fit.
  assert.equal(nextRound({ ...paced, maxRepeats: 8, done: 5, elapsedSeconds: 150 }).more, true);
  assert.equal(nextRound({ ...paced, maxRepeats: 8, done: 5, elapsedSeconds: 151 }).more, false);
});

test("addRounds: asks after the planned rounds, runs rounds numbered on from them, returns the count and the reason", async () => {
  const ran: number[] = [];
  const asked: number[] = [];
  const none = await addRounds(
    5,
    (done) => (asked.push(done), "decided"),
    async (round) => void ran.push(round),
  );
  assert.deepEqual([none, ran, asked], [{ rounds: 5, stoppedBy: "decided" }, [], [5]]);
  const two = await addRounds(
    5,
    (done) => (asked.push(done), done < 7 ? undefined : "at the cap"),
    async (round) => void ran.push(round),
  );
  assert.deepEqual([two, ran, asked], [{ rounds: 7, stoppedBy: "at the cap" }, [6, 7], [5, 5, 6, 7]]);
});

test("a planned round (06): never cut before the rounds a verdict needs; past them, cut only when it would end after the budget", () => {
  const at = { needed: 5, elapsedSeconds: 300, secondsPerRound: 40, budgetSeconds: 340 };
  // Ending exactly at the budget fits; a second later does not.
  assert.equal(plannedRoundFits({ ...at, round: 6 }), true);
  assert.equal(plannedRoundFits({ ...at, round: 6, elapsedSeconds: 301 }), false);
  // The rounds a verdict needs run even past the budget: a cut there would leave no verdict at all.
  assert.equal(plannedRoundFits({ ...at, round: 5, elapsedSeconds: 1000 }), true);
  assert.equal(plannedRoundFits({ ...at, round: 6, elapsedSeconds: 1000 }), false);
});

test("runAdaptiveRounds: the planned rounds one at a time, cut past those a verdict needs once over the budget; then one more while asked", async () => {
  const ran: number[] = [];
  const base = { needed: 2, budgetSeconds: 100, many: "rounds", runRound: async (r: number) => void ran.push(r) };
  // Started long ago: past the needed two, the third planned round would end after the budget.
  const late = await runAdaptiveRounds({
    ...base,
    planned: 4,
    startedAt: Date.now() - 1e6,
    stopAfter: () => "never asked",
  });
  assert.deepEqual(ran, [1, 2]);
  assert.equal(late.planned, 2);
  assert.equal(late.rounds, 2);
  assert.match(
    late.cut ?? "",
    /^planned rounds cut at 2 of 4: one more at ~\d+ s would pass the time budget \(100 s\)$/,
  );
  assert.equal(late.stoppedBy, late.cut);
  // In time: every planned round, then the design asks after each round it adds.
  ran.length = 0;
  const asked: number[] = [];
  const inTime = await runAdaptiveRounds({
    ...base,
    planned: 3,
    startedAt: Date.now(),
    stopAfter: (done, pace) => (asked.push(done), pace.elapsedSeconds >= 0 && done < 5 ? undefined : "decided"),
  });
  assert.deepEqual(
    [ran, asked],
    [
      [1, 2, 3, 4, 5],
      [3, 4, 5],
    ],
  );
  assert.deepEqual(inTime, { planned: 3, rounds: 5, stoppedBy: "decided" });
  // An interrupt stops the adding without asking.
  const stop = new AbortController();
  stop.abort();
  const interrupted = await runAdaptiveRounds({
    ...base,
    planned: 1,
    startedAt: Date.now(),
    signal: stop.signal,
    stopAfter: () => undefined,
  });
  assert.equal(interrupted.stoppedBy, "interrupted");
});
