/**
 * `npm test`: every build/test/**\/*.test.js through node's test runner, one file at a time
 * (the tests start real servers; two at once would only fight over two cores).
 * Files are listed explicitly because node 20 would also run every helper module under test/.
 * Arguments select files by a substring of their path under test/: `unit/` (what `npm run test:unit`
 * runs: test/unit, no servers), `integration/`, or a name such as `pgbench` (both halves of it).
 * `npm run test:unit` compiles with esbuild (`build:fast`: 1.3 s against tsc's 18–24 s on the shared
 * 2 cores at load 9; 5–7 s in all), so it does not type-check: `npm run build` and `npm test` do.
 *
 * The unit files also run on a second Node, a current LTS (`npm run setup -- --tests` unpacks it
 * into .cache/node-lts from the npm package node-linux-<arch>): in `npm test` (no arguments), or
 * with --also-lts. Without that binary the second run is reported as skipped, with the reason.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { has, readCommandArgs, refuse, UsageError } from "./cli-args";

function findTests(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith(".test.js") ? [full] : [];
  });
}

const root = path.resolve(__dirname, "..", "test");
const USAGE = `Usage: node build/scripts/test.js [--also-lts] [SUBSTRING …]

Runs build/test/**/*.test.js one file at a time; with arguments, only the files whose path under
test/ contains one of them (\`unit/\`, \`integration/\`, \`pgbench\`). \`npm test\` builds and lints first.
Without arguments, or with --also-lts, the unit files run again on the LTS Node that
\`npm run setup -- --tests\` puts in .cache/node-lts (DBLAB_NODE_LTS names another binary).`;

let only: readonly string[] = [];
let alsoLts = false;
try {
  const parsed = readCommandArgs(process.argv.slice(2), {
    help: { type: "boolean", short: "h" },
    "also-lts": { type: "boolean" },
  });
  if (has(parsed, "help")) {
    console.log(USAGE);
    process.exit(0);
  }
  only = parsed.positionals;
  alsoLts = has(parsed, "also-lts") || only.length === 0;
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  process.exit(refuse("test", e, "node build/scripts/test.js --help"));
}
const files = findTests(root)
  .filter((f) => only.length === 0 || only.some((o) => path.relative(root, f).includes(o)))
  .sort();
if (files.length === 0) {
  console.error(`no test files under ${root}${only.length ? ` matching ${only.join(", ")}` : ""}`);
  process.exit(1);
}
// Tests never depend on a registry: the official images are used where the engine already has them,
// the stand-in otherwise (DBLAB_PULL=never is also the lab's default: lib/targets/docker/images.ts).
process.env.DBLAB_PULL ??= "never";
interface Counts {
  readonly pass: number;
  readonly fail: number;
  readonly skipped: number;
  readonly status: number;
}

/** Runs `testFiles` on `node`, one at a time; spec output for people, TAP into a file for the counts. */
function runTests(node: string, testFiles: readonly string[]): Counts {
  const tap = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dblab-test-")), "results.tap");
  const result = spawnSync(
    node,
    [
      "--test",
      "--test-concurrency=1",
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      "--test-reporter=tap",
      `--test-reporter-destination=${tap}`,
      ...testFiles,
    ],
    { stdio: "inherit" },
  );
  const summary = fs.existsSync(tap) ? fs.readFileSync(tap, "utf8") : "";
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(summary)?.[1] ?? 0);
  return {
    pass: count("pass"),
    fail: count("fail") + count("cancelled"),
    skipped: count("skipped"),
    status: result.status ?? 1,
  };
}

/** The second Node for the unit files, or why there is none. */
function ltsNode(): { node: string; version: string } | { missing: string } {
  const node = process.env.DBLAB_NODE_LTS || path.resolve(__dirname, "..", "..", ".cache", "node-lts", "bin", "node");
  if (!fs.existsSync(node)) return { missing: `no LTS Node at ${node} (npm run setup -- --tests fetches it)` };
  const version = spawnSync(node, ["--version"], { encoding: "utf8" });
  if (version.status !== 0) return { missing: `${node} does not run: ${version.stderr || String(version.error)}` };
  return { node, version: version.stdout.trim() };
}

const main = runTests(process.execPath, files);
const lines = [`on Node ${process.version}: ${main.pass} passed, ${main.fail} failed, ${main.skipped} skipped`];
const total = { pass: main.pass, fail: main.fail, skipped: main.skipped };
let status = main.status;
const unitFiles = files.filter((f) => path.relative(root, f).startsWith(`unit${path.sep}`));
if (alsoLts && unitFiles.length > 0) {
  const lts = ltsNode();
  if ("missing" in lts) {
    lines.push(`unit tests on the LTS Node: 1 skipped: ${lts.missing}`);
    total.skipped += 1;
  } else if (lts.version === process.version) {
    lines.push(`unit tests on the LTS Node: 1 skipped: ${lts.node} is this Node (${lts.version})`);
    total.skipped += 1;
  } else {
    console.log(`\nthe unit tests again, on Node ${lts.version} (${lts.node})`);
    const second = runTests(lts.node, unitFiles);
    lines.push(
      `unit tests on Node ${lts.version}: ${second.pass} passed, ${second.fail} failed, ${second.skipped} skipped`,
    );
    total.pass += second.pass;
    total.fail += second.fail;
    total.skipped += second.skipped;
    if (second.status !== 0) status = second.status;
  }
}
// The last line is the one CI reads: the totals over both Nodes.
lines.push(`tests: ${total.pass} passed, ${total.fail} failed, ${total.skipped} skipped`);
console.log(`\n${lines.join("\n")}`);
process.exit(status);
