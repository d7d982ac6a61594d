/**
 * runTrials' contract at its margins, with an in-memory store: resume skips finished keys, a
 * returned failed record goes on, a thrown error is recorded and ends the run with its cause kept
 * (or goes on with continueOnError), cleanup after a failure never hides the cause, an interrupt
 * is not recorded; runTrialsOn's adapter is opened lazily, reopened after a failure and always closed;
 * shuffledRounds plans every condition once a round; okTrial starts a finished trial's record;
 * nextNotOnDisk names the trial after one among those not on disk.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { TrialRecord } from "../../lib/results/run-store";
import { StallError } from "../../lib/workloads/failures";
import {
  nextNotOnDisk,
  okTrial,
  runTrials,
  runTrialsOn,
  shuffledRounds,
  TrialFailedError,
  type PlannedTrial,
} from "../../lib/workloads/trials";
import { TrialWatchdog, withWatchdog } from "../../lib/workloads/watchdog";

type C = { readonly n: number };
type T = TrialRecord<C>;

function memoryStore(initial: T[] = []) {
  const lines: T[] = [...initial];
  return {
    lines,
    finishedKeys: () => new Set(lines.filter((t) => t.status === "ok").map((t) => t.key)),
    append: (record: TrialRecord<C>) => void lines.push(record),
  };
}

const plan: PlannedTrial<C>[] = [1, 2, 3, 4].map((n) => ({
  key: `k${n}`,
  condition: { n },
  repeat: 1,
  position: n - 1,
}));
const watch = () => ({ engine: "postgresql" as const, what: "test" });

function ok(p: PlannedTrial<C>): T {
  return {
    key: p.key,
    condition: p.condition,
    repeat: p.repeat,
    status: "ok",
    seconds: p.condition.n,
    startedAt: "",
    finishedAt: "",
  };
}

test("resume skips finished keys, counts them in done, and appends each ran trial in order", async () => {
  const store = memoryStore([ok(plan[0]), { ...ok(plan[1]), status: "failed", seconds: undefined, error: "x" }]);
  const events: string[] = [];
  const ran = await runTrials(plan, async (p) => ok(p), {
    store,
    watch,
    onProgress: (e) => events.push(`${e.done}/${e.total}:${e.last?.key ?? "-"}>${e.next?.key ?? "-"}`),
  });
  assert.deepEqual(
    ran.map((t) => t.key),
    ["k2", "k3", "k4"],
  );
  assert.deepEqual(events, ["1/4:->k2", "2/4:k2>k3", "3/4:k3>k4", "4/4:k4>-"]);
  assert.deepEqual(
    store.lines.map((t) => `${t.key}:${t.status}`),
    ["k1:ok", "k2:failed", "k2:ok", "k3:ok", "k4:ok"],
  );
});

test("a thrown error is recorded failed and ends the run with a TrialFailedError whose cause is the error", async () => {
  const store = memoryStore();
  const stall = new StallError("the server stalled");
  let cleaned = 0;
  const run = runTrials(
    plan,
    async (p) => {
      if (p.key === "k2") throw stall;
      return ok(p);
    },
    {
      store,
      watch,
      afterFailure: async () => {
        cleaned++;
        // A cleanup that fails must not replace the cause.
        throw new Error("ENOENT: scandir '/tmp/dblab-pgbench-x'");
      },
    },
  );
  await assert.rejects(run, (e: unknown) => {
    assert.ok(e instanceof TrialFailedError);
    assert.equal(e.cause, stall);
    assert.equal(e.failure, "stall");
    assert.equal(e.trial.key, "k2");
    assert.match(e.message, /^Trial k2 failed: the server stalled$/);
    return true;
  });
  assert.equal(cleaned, 1);
  assert.deepEqual(
    store.lines.map((t) => `${t.key}:${t.status}`),
    ["k1:ok", "k2:failed"],
  );
  const failed = store.lines[1];
  assert.equal(failed.status === "failed" && failed.error, "the server stalled");
  assert.equal(failed.position, 1);
});

test(
  "a cleanup that never ends (a goodbye to a host that vanished) is cut at the trial's stall bound: the run ends with the trial's cause",
  // Without the bound this test never ends: the runner fails it at its timeout.
  { timeout: 30_000 },
  async () => {
    const store = memoryStore();
    const lost = new Error("Connection terminated unexpectedly");
    let cleanups = 0;
    const watchdog = new TrialWatchdog({ servers: new Map(), boundMs: 200 });
    const run = withWatchdog(watchdog, () =>
      runTrials(
        plan,
        async (p) => {
          if (p.key === "k2") throw lost;
          return ok(p);
        },
        {
          store,
          watch,
          afterFailure: () => {
            cleanups++;
            // A pg client's end() on an idle connection to a silent host: it waits for a close that never comes.
            return new Promise<void>(() => setInterval(() => undefined, 60_000).unref());
          },
        },
      ),
    );
    // Keeps the event loop up while the cleanup hangs, as the lab's open sockets do.
    const alive = setInterval(() => undefined, 1000);
    try {
      await assert.rejects(run, (e: unknown) => e instanceof TrialFailedError && e.cause === lost);
    } finally {
      clearInterval(alive);
    }
    assert.equal(cleanups, 1);
    assert.deepEqual(
      store.lines.map((t) => `${t.key}:${t.status}`),
      ["k1:ok", "k2:failed"],
    );
  },
);

test("continueOnError records the failure and goes on; a returned failed record never stops the run", async () => {
  const store = memoryStore();
  const ran = await runTrials(
    plan,
    async (p): Promise<T> => {
      if (p.key === "k1") throw new Error("syntax error");
      if (p.key === "k3") return { ...ok(p), status: "failed", seconds: undefined, error: "2 clients aborted" };
      return ok(p);
    },
    { store, watch, continueOnError: true },
  );
  assert.deepEqual(
    ran.map((t) => `${t.key}:${t.status}`),
    ["k1:failed", "k2:ok", "k3:failed", "k4:ok"],
  );
  assert.equal(store.lines.length, 4);
});

test("an interrupt is not recorded as a failure: the error goes up as it is", async () => {
  const store = memoryStore();
  const controller = new AbortController();
  const abort = new Error("aborted");
  await assert.rejects(
    runTrials(
      plan,
      async (p) => {
        if (p.key === "k2") {
          controller.abort();
          throw abort;
        }
        return ok(p);
      },
      { store, watch, signal: controller.signal },
    ),
    (e: unknown) => e === abort,
  );
  assert.deepEqual(
    store.lines.map((t) => t.key),
    ["k1"],
  );
});

/** Adapters numbered in opening order; `log` says what happened to which. */
function adapters() {
  const log: string[] = [];
  let opened = 0;
  const open = async () => {
    const id = ++opened;
    log.push(`open ${id}`);
    return { id, close: async () => void log.push(`close ${id}`) };
  };
  return { log, open };
}

test("runTrialsOn opens the adapter on first use, reopens it after a failed trial, and closes it at the end", async () => {
  const { log, open } = adapters();
  const store = memoryStore([ok(plan[0])]);
  const ran = await runTrialsOn(
    open,
    plan,
    async (adapter, p) => {
      log.push(`${p.key} on ${adapter.id}`);
      if (p.key === "k3") throw new Error("Connection terminated unexpectedly");
      return ok(p);
    },
    {
      store,
      watch,
      continueOnError: true,
      afterFailure: async (p) => void log.push(`after ${p.key}`),
      beforeClose: async (adapter) => void log.push(`finish on ${adapter.id}`),
    },
  );
  assert.deepEqual(
    ran.map((t) => `${t.key}:${t.status}`),
    ["k2:ok", "k3:failed", "k4:ok"],
  );
  assert.deepEqual(log, [
    "open 1",
    "k2 on 1",
    "k3 on 1",
    "close 1",
    "after k3",
    "open 2",
    "k4 on 2",
    "finish on 2",
    "close 2",
  ]);
});

test("runTrialsOn closes its adapter when the run ends on an error, and opens none when nothing is left to run", async () => {
  const { log, open } = adapters();
  const controller = new AbortController();
  await assert.rejects(
    runTrialsOn(
      open,
      plan,
      async (adapter, p) => {
        log.push(`${p.key} on ${adapter.id}`);
        if (p.key === "k2") controller.abort();
        controller.signal.throwIfAborted();
        return ok(p);
      },
      { store: memoryStore(), watch, signal: controller.signal, beforeClose: async () => void log.push("finish") },
    ),
  );
  // An interrupt skips afterFailure: only the run's own close remains.
  assert.deepEqual(log, ["open 1", "k1 on 1", "k2 on 1", "close 1"]);

  const done = adapters();
  const ran = await runTrialsOn(done.open, plan, async (_a, p) => ok(p), { store: memoryStore(plan.map(ok)), watch });
  assert.deepEqual(ran, []);
  assert.deepEqual(done.log, []);
});

test("runTrialsOn: a trial's error ends the run with the trial's cause, the adapter closed once", async () => {
  const { log, open } = adapters();
  const lost = new Error("Connection terminated unexpectedly");
  await assert.rejects(
    runTrialsOn(
      open,
      plan,
      async (_adapter, p) => {
        if (p.key === "k2") throw lost;
        return ok(p);
      },
      { store: memoryStore(), watch },
    ),
    (e: unknown) => e instanceof TrialFailedError && e.cause === lost,
  );
  assert.deepEqual(log, ["open 1", "close 1"]);
});

test("shuffledRounds: every condition once a round, keyed by round, in a seeded order of its own per round", () => {
  const conditions = Array.from({ length: 8 }, (_, n) => ({ n }));
  const plan = shuffledRounds(conditions, 3, 7, (c) => `n${c.n}`);
  assert.equal(plan.length, 24);
  assert.deepEqual(
    plan.map((t) => t.position),
    plan.map((_, i) => i),
  );
  for (const repeat of [1, 2, 3]) {
    const round = plan.filter((t) => t.repeat === repeat);
    assert.deepEqual(round.map((t) => t.condition.n).sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
    for (const t of round) assert.equal(t.key, `n${t.condition.n}/r${repeat}`);
  }
  const order = (repeat: number) => plan.filter((t) => t.repeat === repeat).map((t) => t.condition.n);
  assert.notDeepEqual(order(1), order(2), "a round's order is its own");
  assert.deepEqual(
    shuffledRounds(conditions, 3, 7, (c) => `n${c.n}`),
    plan,
    "the same seed, the same plan",
  );
  assert.notDeepEqual(
    shuffledRounds(conditions, 3, 8, (c) => `n${c.n}`),
    plan,
    "another seed, another plan",
  );
});

test("okTrial: a finished trial's record starts with its plan entry, status ok and its units' seconds", () => {
  assert.deepEqual(okTrial({ key: "k1", condition: { n: 1 }, repeat: 2, position: 5 }, [250, 500, 250.5]), {
    key: "k1",
    condition: { n: 1 },
    repeat: 2,
    position: 5,
    status: "ok",
    seconds: 1.0005,
  });
});

test("nextNotOnDisk: the next trial not on disk when asked; none after the last, for an empty plan or a stranger", () => {
  const onDisk = new Set(["k2", "k3"]);
  const next = nextNotOnDisk(plan, { finishedKeys: () => onDisk });
  assert.equal(next(plan[0])?.key, "k4", "k2 and k3 are on disk: skipped");
  assert.equal(next(plan[3]), undefined, "the last");
  assert.equal(next(plan[1]), undefined, "a trial on disk is not among those to run");
  onDisk.add("k4");
  assert.equal(next(plan[0])?.key, "k4", "what is on disk is read once, when asked");
  assert.equal(nextNotOnDisk<PlannedTrial<C>>([], { finishedKeys: () => onDisk })(plan[0]), undefined);
  assert.equal(nextNotOnDisk(plan, memoryStore())(plan[0])?.key, "k2");
});
