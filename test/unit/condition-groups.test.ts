import { test } from "node:test";
import assert from "node:assert/strict";
import { checkpointOrAutovacuumRepeats } from "../../lib/experiments/condition-groups";

test("checkpointOrAutovacuumRepeats: a repeat with a checkpoint or an autovacuum, in the trials' order", () => {
  assert.deepEqual(checkpointOrAutovacuumRepeats([]), []);
  assert.deepEqual(
    checkpointOrAutovacuumRepeats([
      { repeat: 1 },
      { repeat: 2, counters: {} },
      { repeat: 3, counters: { checkpoints: 0, "table.autovacuum_count": 0 } },
      { repeat: 6, counters: { "table.autovacuum_count": 1 } },
      { repeat: 4, counters: { checkpoints: 1 } },
      { repeat: 5, counters: { checkpoints: 2, "table.autovacuum_count": 1 } },
    ]),
    [6, 4, 5],
  );
});
