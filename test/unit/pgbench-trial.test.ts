import { test } from "node:test";
import assert from "node:assert/strict";
import { lastTrialText } from "../../lib/workloads/pgbench-trial";

const summary = { transactions: 12_345, failed: 0, tps: 411.6, statements: [], abortedClients: 0 };

test("the progress line's last trial: its key and whole tps, nothing before the first, n/a without a pgbench run", () => {
  assert.equal(lastTrialText({ key: "set 1 · reindex#0", pgbench: { summary } }), "last: set 1 · reindex#0 412 tps · ");
  assert.equal(lastTrialText(undefined), "");
  assert.equal(lastTrialText({ key: "level 2#1" }), "last: level 2#1 n/a tps · ");
  assert.equal(
    lastTrialText({ key: "level 2#1", pgbench: { summary: { ...summary, tps: NaN } } }),
    "last: level 2#1 n/a tps · ",
  );
});
