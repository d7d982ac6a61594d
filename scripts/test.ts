/**
 * `npm test`: every build/test/**\/*.test.js through node's test runner, one file at a time
 * (the tests start real servers; two at once would only fight over two cores).
 * Files are listed explicitly because node 20 would also run every helper module under test/.
 * Arguments select files by a substring of their path under test/: `unit/` (what `npm run test:unit`
 * runs: test/unit, no servers), `integration/`, or a name such as `pgbench` (both halves of it).
 * `npm run test:unit` compiles with esbuild (`build:fast`: 1.3 s against tsc's 18–24 s on the shared
 * 2 cores at load 9; 5–7 s in all), so it does not type-check: `npm run build` and `npm test` do.
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
const USAGE = `Usage: node build/scripts/test.js [SUBSTRING …]

Runs build/test/**/*.test.js one file at a time; with arguments, only the files whose path under
test/ contains one of them (\`unit/\`, \`integration/\`, \`pgbench\`). \`npm test\` builds and lints first.`;

let only: readonly string[] = [];
try {
  const parsed = readCommandArgs(process.argv.slice(2), { help: { type: "boolean", short: "h" } });
  if (has(parsed, "help")) {
    console.log(USAGE);
    process.exit(0);
  }
  only = parsed.positionals;
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
// the stand-in otherwise. A pull on a closed machine still sends the registry's name to an outside
// resolver (lib/targets/docker/images.ts).
process.env.DBLAB_PULL ??= "never";
// Spec output for people, TAP into a file for the closing count line that CI reads.
const tap = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dblab-test-")), "results.tap");
const result = spawnSync(
  process.execPath,
  [
    "--test",
    "--test-concurrency=1",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tap}`,
    ...files,
  ],
  { stdio: "inherit" },
);
const summary = fs.existsSync(tap) ? fs.readFileSync(tap, "utf8") : "";
const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(summary)?.[1] ?? 0);
console.log(
  `\ntests: ${count("pass")} passed, ${count("fail") + count("cancelled")} failed, ${count("skipped")} skipped`,
);
process.exit(result.status ?? 1);
