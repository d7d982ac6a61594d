// test-tier: shared — embedded PostgreSQL, pgbench and a delay proxy on OS-chosen loopback ports
/**
 * The benchmarks' machinery, not their speed (speed goals live in `npm run bench`): the pgbench
 * side of the write-path comparison must write the same rows as the lab, and the delay-proxy
 * bench must produce its figures. Small sizes, real servers.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { benchWritePath } from "../../bench/write-path";
import { withEnv } from "../support/env";
import { benchDelayProxy } from "../../bench/delay-proxy";
import { findHostPgbench } from "../../lib/workloads/pgbench/locate";

function pgbenchMissing(): string | undefined {
  try {
    return findHostPgbench() ? undefined : "pgbench not found on this host (npm run setup installs it)";
  } catch (error) {
    return (error as Error).message; // DBLAB_PGBENCH set to something that does not run
  }
}

test(
  "write path vs pgbench: both sides write every row once, with server time split out",
  { timeout: 120_000 },
  async (t) => {
    const missing = pgbenchMissing();
    if (missing) return t.skip(missing);
    // benchWritePath throws if either side touched other than `rows` rows (pg_stat_statements).
    // PGSSLMODE=require, as in a shell set up for a managed database: it must reach neither pgbench
    // nor the lab's clients, whose server here (embedded) has no TLS.
    const results = await withEnv({ PGSSLMODE: "require" }, () =>
      benchWritePath(3000, 1000, ["insert", "update_one_field"], 2),
    );
    assert.deepEqual(
      results.map((r) => r.operation),
      ["insert", "update_one_field"],
    );
    for (const r of results) {
      assert.ok(
        r.labSeconds > 0 && r.pgbenchSeconds > 0 && Number.isFinite(r.ratio),
        `${r.operation}: ${JSON.stringify(r)}`,
      );
      for (const share of [r.outsideServerShare, r.pgbenchOutsideServerShare])
        assert.ok(share > 0 && share < 1, `${r.operation}: share ${share}`);
      assert.ok(r.serverTimeRatio > 0, `${r.operation}: server time ratio ${r.serverTimeRatio}`);
      // Two paired rounds, one in each order: the median ratio lies between the two rounds' ratios.
      const [low, high] = r.ratioRange ?? [NaN, NaN];
      assert.equal(r.rounds, 2);
      assert.ok(low <= r.ratio && r.ratio <= high, `${r.operation}: ${r.ratio} in [${low}, ${high}]`);
    }
  },
);

test(
  "write path vs pgbench refuses a row count pgbench cannot split into whole batches",
  { timeout: 60_000 },
  async (t) => {
    const missing = pgbenchMissing();
    if (missing) return t.skip(missing);
    await assert.rejects(benchWritePath(2500, 1000, ["insert"]), /multiple of the batch size/);
    await assert.rejects(benchWritePath(3000, 1000, ["insert"], 0), /rounds must be a whole number/);
  },
);

test(
  "delay-proxy bench: own cost beside a bare pipe, and the closed loop reaches each request",
  { timeout: 120_000 },
  async () => {
    const b = await benchDelayProxy({ samples: 100, rounds: 1, requestedMs: [1.7] });
    assert.ok(Number.isFinite(b.overheadAtZeroUs) && Number.isFinite(b.barePipeOverheadUs));
    assert.equal(b.points.length, 1);
    // Correctness, not precision (that is what the bench reports): the closed loop adds delay. An upper
    // bound would be a bet on the machine's load.
    assert.ok(b.points[0].closedLoopAddedMs > 0, `added ${b.points[0].closedLoopAddedMs} ms for 1.7`);
  },
);
