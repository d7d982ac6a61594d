/**
 * The timed-batch loop at its margins: no units, no calls; an abort before a unit stops the loop there; only `run`
 * is timed, `after` follows each unit untimed; the two roundings to the microsecond; ids in inclusive ranges.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { idRanges, roundedToMicrosecond, timeUnits } from "../../lib/workloads/timed";

test("timeUnits: no units, no calls and no times", async () => {
  let calls = 0;
  assert.deepEqual(await timeUnits([], async () => calls++, { after: async () => void calls++ }), []);
  assert.equal(calls, 0);
});

test("timeUnits: each unit in order with its index, `after` following it untimed", async () => {
  const seen: string[] = [];
  const ms = await timeUnits(
    ["a", "b", "c"],
    async (unit, index) => {
      seen.push(`${unit}${index}`);
      await sleep(unit === "b" ? 50 : 1);
    },
    {
      after: async (unit) => {
        seen.push(`after ${unit}`);
        await sleep(250);
      },
    },
  );
  assert.deepEqual(seen, ["a0", "after a", "b1", "after b", "c2", "after c"]);
  assert.equal(ms.length, 3);
  assert.ok(ms[1] >= 45, `b's sleep is timed: ${ms[1]}`);
  assert.ok(Math.max(...ms) < 250, `after's sleeps are not: ${ms.join(", ")}`);
});

test("timeUnits: an abort is checked before each unit; a unit already running ends", async () => {
  const aborted = new AbortController();
  aborted.abort();
  let calls = 0;
  await assert.rejects(
    timeUnits([1], async () => calls++, { signal: aborted.signal }),
    { name: "AbortError" },
  );
  assert.equal(calls, 0, "none ran");
  const during = new AbortController();
  const ran: number[] = [];
  const loop = timeUnits(
    [1, 2, 3],
    async (unit) => {
      ran.push(unit);
      if (unit === 2) during.abort();
    },
    { signal: during.signal },
  );
  await assert.rejects(loop, { name: "AbortError" });
  assert.deepEqual(ran, [1, 2]);
});

test("timeUnits rounds each unit to the microsecond where asked; roundedToMicrosecond rounds a record's times", async () => {
  const each = await timeUnits([1, 2, 3], () => sleep(1), { roundEachToMicrosecond: true });
  for (const ms of each) assert.equal(Math.round(ms * 1000) / 1000, ms);
  assert.deepEqual(roundedToMicrosecond([]), []);
  assert.deepEqual(roundedToMicrosecond([1.2344, 1.2345001, 0.0004, 12]), [1.234, 1.235, 0, 12]);
});

test("idRanges: ids 1 to rows in inclusive ranges, the last shorter; none for no rows", () => {
  assert.deepEqual([...idRanges(0, 10)], []);
  assert.deepEqual([...idRanges(5, 10)], [[1, 5]]);
  assert.deepEqual([...idRanges(10, 10)], [[1, 10]]);
  assert.deepEqual(
    [...idRanges(10, 3)],
    [
      [1, 3],
      [4, 6],
      [7, 9],
      [10, 10],
    ],
  );
  assert.deepEqual(
    [...idRanges(3, 1)],
    [
      [1, 1],
      [2, 2],
      [3, 3],
    ],
  );
});
