/**
 * Every knob listed: each notebook's parameters come from their declarations
 * (lib/experiments/<name>/params.ts, with a meaning each), `reproduce --only NN --help` prints them
 * with their three profile values, and docs/parameters.md is exactly what `npm run docs:parameters`
 * writes from the same source.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { EXPERIMENTS, findExperiment } from "../../lib/experiments/registry";
import { PROFILES } from "../../lib/params/profiles";
import {
  allParameters,
  declarationFile,
  helpText,
  notebookParameters,
  PARAMETERS_DOC,
  parametersMarkdown,
  valueText,
} from "../../scripts/parameters";

const root = path.resolve(__dirname, "..", "..", "..");

test("docs/parameters.md is what npm run docs:parameters writes (run it after changing a parameter)", () => {
  const written = fs.readFileSync(path.join(root, PARAMETERS_DOC), "utf8");
  assert.equal(written, parametersMarkdown(allParameters()), "docs/parameters.md is stale: npm run docs:parameters");
});

test("every notebook's every parameter is declared with a type and a meaning", () => {
  for (const entry of EXPERIMENTS) {
    const n = notebookParameters(entry);
    assert.ok(fs.existsSync(path.join(root, declarationFile(entry))), `${entry.id}: ${declarationFile(entry)}`);
    assert.deepEqual(n.parameters.map((p) => p.name).sort(), Object.keys(entry.profiles.default).sort());
    for (const p of n.parameters) {
      assert.ok(p.meaning.length >= 10, `${entry.id} ${p.name}: a one-line meaning at its declaration`);
      assert.ok(p.type && !/\bany\b/.test(p.type), `${entry.id} ${p.name}: type ${p.type}`);
    }
  }
});

test("reproduce --only 03 --help lists 03's knobs with their smoke, default and full values", () => {
  const n = notebookParameters(findExperiment("03"));
  const text = helpText(n);
  for (const p of n.parameters) {
    assert.match(text, new RegExp(`^  ${p.name}: `, "m"));
    const values = PROFILES.map((profile) => `${profile} ${valueText(p.values[profile])}`).join(" · ");
    assert.ok(text.replace(/\n +/g, " ").includes(values), `${p.name}: ${values}`);
  }
  // Through the command itself, as a user types it (after npm's build).
  const script = path.join(__dirname, "..", "..", "scripts", "reproduce.js");
  const out = spawnSync(process.execPath, [script, "--only", "03", "--help"], { encoding: "utf8" });
  assert.equal(out.status, 0, out.stderr);
  assert.ok(out.stdout.includes(text), "the command prints the list");
  const unknown = spawnSync(process.execPath, [script, "--only", "99", "--help"], { encoding: "utf8" });
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /No notebook "99"/);
});
