/**
 * Which of an external server's lab databases the next run drops for runs that are gone
 * (lib/targets/external/external-target.ts): those whose owner is gone, and the unmarked ones a run
 * killed between its CREATE DATABASE and its COMMENT left under its database's name; never a live
 * run's, another machine's, or one outside every dead run's name.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import os from "node:os";
import { deadRunsDatabases, LAB_DATABASE_COMMENT, markOf } from "../../lib/targets/external/external-target";

const DEAD = 999_999_990;
const comment = (pid: number, host = os.hostname()) => `${LAB_DATABASE_COMMENT} (owner ${host} pid ${pid} started 1)`;

test("a database's mark: a dead owner here, no comment, or anything else kept", () => {
  assert.equal(markOf(comment(DEAD)), "dead owner");
  assert.equal(markOf(null), "unmarked");
  assert.equal(markOf(""), "unmarked");
  // This process is alive (its start ticks are not checked without them in the comment).
  assert.equal(markOf(`${LAB_DATABASE_COMMENT} (owner ${os.hostname()} pid ${process.pid})`), "kept");
  assert.equal(markOf(comment(DEAD, "another-machine")), "kept");
  assert.equal(markOf(LAB_DATABASE_COMMENT), "kept");
  assert.equal(markOf("the team's scratch database"), "kept");
});

test("the unmarked clone of a dead run goes with it; a live run's unmarked clone stays", () => {
  const listed = [
    { name: "dblab_a", mark: "dead owner" as const },
    { name: "dblab_a_inventory_template", mark: "dead owner" as const },
    // Killed mid-copy: the server finished the CREATE DATABASE, the COMMENT never came.
    { name: "dblab_a_inventory_l14", mark: "unmarked" as const },
    { name: "dblab_b", mark: "kept" as const },
    { name: "dblab_b_inventory_run", mark: "unmarked" as const },
  ];
  assert.deepEqual(deadRunsDatabases(listed, []), ["dblab_a", "dblab_a_inventory_template", "dblab_a_inventory_l14"]);
});

test("under a run's name means the name itself or the name and an underscore, nothing looser", () => {
  const listed = [
    { name: "dblab_a", mark: "dead owner" as const },
    { name: "dblab_a_x", mark: "unmarked" as const },
    { name: "dblab_ab_x", mark: "unmarked" as const },
    { name: "dblab_c", mark: "unmarked" as const },
  ];
  assert.deepEqual(deadRunsDatabases(listed, []), ["dblab_a", "dblab_a_x"]);
});

test("a dead run's record names its database when the COMMENT never came; not once a live run made it again", () => {
  const unmarkedRun = [
    { name: "dblab_r", mark: "unmarked" as const },
    { name: "dblab_r_pgbench_template", mark: "unmarked" as const },
  ];
  assert.deepEqual(deadRunsDatabases(unmarkedRun, []), [], "no record: unmarked databases are nobody's to judge");
  assert.deepEqual(deadRunsDatabases(unmarkedRun, ["dblab_r"]), ["dblab_r", "dblab_r_pgbench_template"]);
  // The same run resumed by a live process: its database carries that process's mark now.
  const resumed = [
    { name: "dblab_r", mark: "kept" as const },
    { name: "dblab_r_pgbench_run", mark: "unmarked" as const },
  ];
  assert.deepEqual(deadRunsDatabases(resumed, ["dblab_r"]), []);
  // Its database already gone, a clone under it still unmarked.
  assert.deepEqual(deadRunsDatabases([{ name: "dblab_r_pgbench_run", mark: "unmarked" }], ["dblab_r"]), [
    "dblab_r_pgbench_run",
  ]);
});
