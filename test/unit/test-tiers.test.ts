/**
 * The test scheduler's tiers as `node build/scripts/test.js --list` reads them from the sources: every
 * unit file (test/unit and a notebook's beside its code) is `unit`, every integration file one of fast,
 * shared, host, alone, and `--fast` keeps the unit and fast files only. Nothing runs: --list starts no
 * test file.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";

const built = path.resolve(__dirname, "..", "..");

function list(args: readonly string[]): { tier: string; file: string }[] {
  const out = spawnSync(process.execPath, [path.join(built, "scripts", "test.js"), "--list", ...args], {
    encoding: "utf8",
  });
  assert.equal(out.status, 0, out.stderr);
  return out.stdout
    .trim()
    .split("\n")
    .map((line) => {
      const [tier, file] = line.trim().split(/\s+/);
      return { tier, file };
    });
}

test("--list: unit files are unit, integration files name a known tier", () => {
  const rows = list([]);
  assert.ok(rows.length > 0);
  for (const { tier, file } of rows) {
    // A notebook's unit files sit beside its code (lib/experiments/<notebook>/).
    if (file.startsWith(`unit${path.sep}`) || file.startsWith(`lib${path.sep}`)) assert.equal(tier, "unit", file);
    else assert.ok(["fast", "shared", "host", "alone"].includes(tier), `${file}: ${tier}`);
  }
  // The files that hold the machine's Docker daemon or make namespaces: never two of them at once.
  for (const held of ["fault-matrix.test.js", "remote-engine.test.js", "docker-target.test.js", "one-system.test.js"])
    assert.equal(rows.find((r) => r.file.endsWith(held))?.tier, "host", held);
  assert.equal(rows.find((r) => r.file.endsWith("fault-matrix-embedded.test.js"))?.tier, "shared");
  assert.equal(rows.find((r) => r.file.endsWith(path.join("round-trips", "claims.test.js")))?.tier, "unit");
});

test("--list --fast: the unit files and the fast integration files only", () => {
  const all = list([]);
  const fast = list(["--fast"]);
  assert.deepEqual(
    fast.map((r) => r.file),
    all.filter((r) => r.tier === "unit" || r.tier === "fast").map((r) => r.file),
  );
});
