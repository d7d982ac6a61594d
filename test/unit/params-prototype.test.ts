/**
 * `--set '__proto__={…}'` would be accepted silently: assigned into a plain object it sets the
 * prototype, so the key vanishes from Object.keys while every lookup can read what it carried.
 * It, constructor and prototype are refused like any unknown parameter, by the CLI and by the params.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { indexWriteCostParams } from "../../lib/experiments/index-write-cost/params";
import { params as reindexUnderLoadParams } from "../../lib/experiments/reindex-under-load";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { parseArgs, plan } from "../../scripts/reproduce";

for (const key of ["__proto__", "constructor", "prototype"]) {
  test(`--set '${key}={…}' is refused like any unknown parameter`, () => {
    const opts = parseArgs(["--only", "01", "--set", `${key}={"rowCounts":[1]}`]);
    assert.equal(Object.getPrototypeOf(opts.sets), Object.prototype, "the prototype is left alone");
    assert.throws(() => plan(opts, projectRoot()), new RegExp(`unknown parameter "${key}"`));
  });

  test(`a parameters object with its own "${key}" key is refused`, () => {
    const given = JSON.parse(`{"${key}": {"rowCounts": [1]}}`) as object;
    assert.throws(() => indexWriteCostParams("smoke", given), new RegExp(`unknown parameter "${key}"`));
    assert.throws(() => reindexUnderLoadParams("smoke", given), new RegExp(`unknown parameter "${key}"`));
  });
}

test("parameters hidden in a prototype (an object literal's __proto__) are refused, not applied", () => {
  const given = { __proto__: { rowCounts: [1] } };
  assert.throws(() => indexWriteCostParams("smoke", given as never), /unknown parameter "__proto__"/);
});

test("a parameters object without a prototype is still accepted", () => {
  const given = Object.assign(Object.create(null) as object, { repeats: 2 });
  assert.equal(indexWriteCostParams("smoke", given as never).repeats, 2);
});
