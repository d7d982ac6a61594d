import { test } from "node:test";
import assert from "node:assert/strict";
import { likePrefix, runDatabasePrefix, runTag } from "../../lib/targets/run-names";
import { newStoredRunId } from "../../lib/results/run-store";

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

test("a run's id in a database name: lower case, the notebook cut to its number, the random end kept", () => {
  assert.equal(runTag("20261201T205500_03-over-indexing_ab12"), "20261201t205500_03_ab12");
  assert.equal(runDatabasePrefix("20261201T205500_06-your-indexes_0f0f"), "dblab_20261201t205500_06_0f0f");
  // Two runs started in the same second differ in their random end, and so do their names.
  const a = newStoredRunId("03-over-indexing");
  const b = newStoredRunId("03-over-indexing");
  if (a !== b) assert.notEqual(runTag(a), runTag(b));
});

test("any run id gives names PostgreSQL takes unquoted, the longest suffix included", () => {
  for (const id of [
    "20261201T205500_04-reindex-under-load_ffff",
    "a-very-long-DBLAB_RUN_ID-set-by-a-ci-job-with-a-branch-name/and/slashes_02-create-index-after-load_1234",
    "X",
  ]) {
    const prefix = runDatabasePrefix(id);
    for (const suffix of ["", "_inventory_template", "_yi_v199", "_pgbench_template"])
      assert.match(prefix + suffix, IDENTIFIER, `${id} → ${prefix}${suffix}`);
  }
  assert.ok(runTag("a-very-long-DBLAB_RUN_ID-set-by-a-ci-job-with-a-branch-name_1234").endsWith("_1234"));
});

test("a prefix's LIKE pattern matches only the names under it", () => {
  assert.equal(likePrefix("dblab_x_1"), "dblab\\_x\\_1\\_%");
});
