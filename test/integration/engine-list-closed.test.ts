// test-tier: shared — tsc over a copy of lib/ in its own temporary folder; no server
/**
 * The engine list is closed: a name added to ENGINES does not compile until every per-engine table
 * of lib/ (each `Record<Engine, …>`) has its entry. The test adds "mysql" to a copy of the sources
 * and type-checks the copy: every table must fail, naming the new engine, and nothing else may.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "..", "..", "..");

/** Every `Record<Engine, …>` table of lib/, as "file:line" of its declaration. */
function tables(dir: string): { file: string; line: number; name: string }[] {
  const out: { file: string; line: number; name: string }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((l, i) => {
      // A declaration whose type is a record keyed by Engine (on its line or the next two: prettier
      // breaks long types).
      const head = lines.slice(i, i + 3).join(" ");
      const m = /^(?:export )?const (\w+)\s*:\s*(?:Readonly<\s*)?Record<Engine,/.exec(head);
      if (m && /^(?:export )?const /.test(l)) out.push({ file: path.relative(root, file), line: i + 1, name: m[1] });
    });
  }
  return out;
}

test("a fake engine in a copy of the engine list fails to compile in every per-engine table, and only there", () => {
  const found = tables(path.join(root, "lib"));
  // The tables docs/adding-an-engine.md lists: the test fails if one is renamed away from the pattern.
  for (const name of ["ENGINE_FACTS", "LIVENESS", "PROFILES", "OFFICIAL_IMAGES", "EMBEDDED", "START", "ADAPTERS"])
    assert.ok(
      found.some((t) => t.name === name),
      `${name} is a Record<Engine, …>: ${found.map((t) => t.name).join(", ")}`,
    );
  const copy = mkdtempSync(path.join(os.tmpdir(), "dblab-engine-list-"));
  try {
    cpSync(path.join(root, "lib"), path.join(copy, "lib"), { recursive: true });
    symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"));
    const engines = path.join(copy, "lib", "targets", "engines.ts");
    const source = readFileSync(engines, "utf8");
    const list = 'export const ENGINES = ["postgresql", "mongodb"] as const;';
    assert.ok(source.includes(list), "the engine list is where the test edits it");
    writeFileSync(engines, source.replace(list, 'export const ENGINES = ["postgresql", "mongodb", "mysql"] as const;'));
    writeFileSync(
      path.join(copy, "tsconfig.json"),
      JSON.stringify({
        extends: path.join(root, "tsconfig.json"),
        compilerOptions: { noEmit: true, incremental: false, rootDir: ".", declaration: false },
        // lib's code: a notebook's unit tests beside it import test/support, which the copy has not.
        include: ["lib/**/*.ts"],
        exclude: ["lib/**/*.test.ts"],
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json", "--pretty", "false"],
      { cwd: copy, encoding: "utf8", timeout: 300_000 },
    );
    const errors = tsc.stdout
      .split("\n")
      .map((l) => /^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ file: m[1], line: Number(m[2]), code: m[3], message: m[4] }));
    assert.notEqual(tsc.status, 0, "the copy compiled with an engine no table has");
    for (const t of found) {
      const hit = errors.find((e) => e.file === t.file && e.line >= t.line && e.line <= t.line + 3);
      assert.ok(hit, `${t.name} (${t.file}:${t.line}) compiled without "mysql": ${tsc.stdout.slice(0, 2000)}`);
      assert.match(hit.message, /mysql/, `${t.name}: ${hit.message}`);
    }
    // Every error is a table's: no other place breaks (a branch on the name would compile silently,
    // which the tables are there to prevent, and is found by review, not here).
    const stray = errors.filter(
      (e) => !found.some((t) => e.file === t.file && e.line >= t.line && e.line <= t.line + 3),
    );
    assert.deepEqual(stray, [], "errors outside the per-engine tables");
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
