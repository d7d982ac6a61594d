/**
 * The test runner's pool (scripts/pool.ts): at most `slots` jobs at once, never two exclusive ones
 * together, and a slot does not idle behind an exclusive job while one that is not waits.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { runPool } from "../../scripts/pool";

interface Job {
  readonly name: string;
  readonly exclusive: boolean;
  /** Turns of the event loop it runs for. */
  readonly turns: number;
}

async function simulate(jobs: readonly Job[], slots: number) {
  const running = new Set<Job>();
  let most = 0;
  let exclusiveTogether = 0;
  const starts: string[] = [];
  await runPool(jobs, { slots, exclusive: (j) => j.exclusive }, async (job) => {
    running.add(job);
    starts.push(job.name);
    most = Math.max(most, running.size);
    if ([...running].filter((j) => j.exclusive).length > 1) exclusiveTogether++;
    for (let i = 0; i < job.turns; i++) await new Promise((r) => setImmediate(r));
    running.delete(job);
    return job.name;
  });
  return { most, exclusiveTogether, starts };
}

test("two exclusive jobs never run together; the free slot takes the next job that is not exclusive", async () => {
  const jobs: Job[] = [
    { name: "host-a", exclusive: true, turns: 20 },
    { name: "host-b", exclusive: true, turns: 20 },
    { name: "shared-a", exclusive: false, turns: 5 },
    { name: "shared-b", exclusive: false, turns: 5 },
  ];
  const { most, exclusiveTogether, starts } = await simulate(jobs, 2);
  assert.equal(exclusiveTogether, 0);
  assert.equal(most, 2);
  // host-b waits for host-a; the second slot runs both shared jobs meanwhile.
  assert.deepEqual(starts, ["host-a", "shared-a", "shared-b", "host-b"]);
});

test("a slot with only exclusive jobs left sleeps until the running one ends, then takes one", async () => {
  const jobs: Job[] = [
    { name: "host-a", exclusive: true, turns: 10 },
    { name: "host-b", exclusive: true, turns: 1 },
    { name: "host-c", exclusive: true, turns: 1 },
  ];
  const { most, exclusiveTogether, starts } = await simulate(jobs, 3);
  assert.equal(exclusiveTogether, 0);
  assert.equal(most, 1);
  assert.deepEqual(starts, ["host-a", "host-b", "host-c"]);
});

test("without exclusive jobs the pool fills every slot and runs every job once", async () => {
  const jobs: Job[] = Array.from({ length: 7 }, (_, i) => ({ name: `j${i}`, exclusive: false, turns: 3 }));
  const { most, starts } = await simulate(jobs, 3);
  assert.equal(most, 3);
  assert.deepEqual([...starts].sort(), jobs.map((j) => j.name).sort());
});

test("a failed job frees its exclusive hold: the next exclusive one still runs", async () => {
  const seen: string[] = [];
  await assert.rejects(
    runPool(["host-a", "host-b"], { slots: 2, exclusive: () => true }, async (name) => {
      seen.push(name);
      if (name === "host-a") throw new Error("boom");
      return name;
    }),
    /boom/,
  );
  assert.deepEqual(seen, ["host-a", "host-b"]);
});
