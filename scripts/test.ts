/**
 * `npm test`: every build/test/**\/*.test.js and every notebook's unit files beside its code
 * (build/lib/experiments/<notebook>/**\/*.test.js), each file in a `node --test` process of its own, some
 * of them at once, and at the end every file's wall time, slowest first, then the counts (the last
 * line, `tests: N passed, N failed, N skipped`, is the one CI reads).
 * Files are listed explicitly because node 20 would also run every helper module under test/.
 * Arguments select files by a substring of their path under test/ (lib/ for a notebook's): `unit/`
 * (what `npm run test:unit` runs: test/unit and the notebooks' files, no servers), `integration/`, or
 * a name such as `pgbench` (both halves of it).
 * `npm run test:unit` compiles with esbuild (`build:fast`: 1.3 s against tsc's 18–24 s on the shared
 * 2 cores at load 9; 5–7 s in all), so it does not type-check: `npm run build` and `npm test` do.
 * `npm run test:fast` (`--fast`) is the unit files and the integration files of tier `fast`; it
 * builds with tsc (`npm run build`, incremental), so it type-checks, and it does not lint.
 *
 * Tiers: how a file may run beside others.
 * - test/unit/* and a notebook's files beside its code: no servers, no shared state; a pool of
 *   max(2, os.availableParallelism()) at once.
 * - An integration file names its tier in a directive comment in its first lines:
 *     // test-tier: fast    shares nothing (see below), loopback only, quick: in `npm run test:fast`
 *     // test-tier: shared  shares nothing, but slow or heavy (Jupyter kernels, whole smoke runs)
 *     // test-tier: host    holds something of the machine's (below): never beside another host
 *                           file, but beside one that shares nothing
 *     // test-tier: alone   runs with no other test file running
 *   A file without the directive runs alone, the safe default. fast, shared and host files run in one
 *   pool, at most MAX_INTEGRATION_AT_ONCE at a time and at most one host file among them; the alone
 *   files then run one by one.
 *   "Shares nothing" means: whatever it starts is its own and found by its own handles (embedded
 *   PostgreSQL and proxies on OS-chosen ports, fake servers, Jupyter kernels and Chromium on free
 *   ports, its own temporary folders, mounts it makes on its own folders). What a host file holds:
 *   the Docker daemon (containers, images, the stand-in build, its event stream), network
 *   namespaces, veth pairs and iptables. A file that counts or kills processes machine-wide or by
 *   name, uses fixed names or ports, or reads the lab's default state folder is `alone`.
 * - Every integration file gets a state folder (DBLAB_STATE_DIR) and a TMPDIR of its own, so the
 *   records and leftovers a test looks at are its own; after it ends, a record left there is removed
 *   by `clean` on that folder, then the folder goes (kept with DBLAB_KEEP_TEST_OUTPUT=1). A file run
 *   alone keeps the environment as given (the default state folder and temporary directory).
 * - Each file's CPU time (its whole process tree, from a cgroup of its own: cpu-accounting.ts) is
 *   shown beside its wall time: what a file costs the 2 cores decides what may run beside it.
 *
 * The scheduler is written here, not left to `node --test --test-concurrency`: node 20 applies one
 * concurrency to every file of a run (it cannot keep some files alone while others share), and it
 * cannot give one file an environment of its own. Each file's output is buffered while several run
 * and printed whole when it ends; a file run by itself prints as it goes.
 *
 * The unit files also run on a second Node, a current LTS (`npm run setup -- --tests` unpacks it
 * into .cache/node-lts from the npm package node-linux-<arch>): in `npm test` (no arguments), or
 * with --also-lts. Without that binary the second run is reported as skipped, with the reason.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureKernelSpec } from "../lib/jupyter/kernel-spec";
import { hostWindow, readCpuTimes } from "../lib/results/quietness";
import { percent } from "../lib/stats/format";
import { has, readCommandArgs, refuse, UsageError } from "./cli-args";
import { type CpuMeter, type Straggler, cpuAccountingMissing, cpuMeter } from "./cpu-accounting";
import { runPool } from "./pool";
import type { ReportedCounts, ReportedFailure, ReportedLine } from "./failure-record";

/**
 * Integration files at once. Each keeps about one core busy (a server and the client driving it,
 * or a kernel compiling), and this machine has 2: measured, the 14 fast files (79 s of file time)
 * took 43 s at 2 at once, ×1.84 already; a third would only wait for CPU, and stretch the bounded
 * waits inside the tests (cell timeouts, readiness, watchdog probes) for nothing.
 */
const MAX_INTEGRATION_AT_ONCE = 2;
/**
 * Unit files are short and mostly CPU: one per core, and 2 even on one core (a file spends part of
 * its time starting Node and waiting on children). Measured on 2 cores: 125 s of file time in 63 s.
 */
const UNIT_AT_ONCE = Math.max(2, os.availableParallelism());
/** The priority of unit files run beside integration files (19 is the lowest). */
const NICE = 10;
/** How far into a source file its `// test-tier:` directive may be: the first lines, before the imports. */
const DIRECTIVE_LINES = 10;

const TIERS = ["fast", "shared", "host", "alone"] as const;
type IntegrationTier = (typeof TIERS)[number];
type Tier = "unit" | IntegrationTier;

const buildRoot = path.resolve(__dirname, "..");
const projectRoot = path.resolve(buildRoot, "..");
const root = path.join(buildRoot, "test");
/** A notebook's unit files sit beside its code, as in testcontainers-node's modules. */
const notebooksRoot = path.join(buildRoot, "lib", "experiments");

function findTests(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith(".test.js") ? [full] : [];
  });
}

const isNotebooks = (file: string): boolean => file.startsWith(notebooksRoot + path.sep);
const relative = (file: string): string => path.relative(isNotebooks(file) ? buildRoot : root, file);
const isUnit = (file: string): boolean => isNotebooks(file) || relative(file).startsWith(`unit${path.sep}`);
/** `unit/` selects every unit file, a notebook's too. */
const selects = (file: string, arg: string): boolean =>
  relative(file).includes(arg) || (arg === `unit${path.sep}` && isUnit(file));

/**
 * A file's tier, from the directive in its TypeScript source (esbuild's build:fast drops comments,
 * so the compiled file may not carry it). An unknown tier is refused: a typo must not run a file
 * beside others, nor silently alone.
 */
function tierOf(file: string): Tier {
  if (isUnit(file)) return "unit";
  const source = path.join(projectRoot, "test", relative(file).replace(/\.js$/, ".ts"));
  if (!fs.existsSync(source)) return "alone";
  const head = fs.readFileSync(source, "utf8").split("\n").slice(0, DIRECTIVE_LINES);
  for (const line of head) {
    const m = /^\/\/ test-tier: (\S+)/.exec(line);
    if (!m) continue;
    const tier = TIERS.find((t) => t === m[1]);
    if (!tier) throw new UsageError(`${source}: unknown test tier "${m[1]}" (one of ${TIERS.join(", ")})`);
    return tier;
  }
  return "alone";
}

const USAGE = `Usage: node build/scripts/test.js [--fast] [--also-lts] [--list] [SUBSTRING …]

Runs build/test/**/*.test.js, each file in a node --test process of its own: the unit files a few at
a time, the integration files of tier fast and shared two at a time, those of tier alone (or without
a tier) one by one; then each file's time, slowest first. With arguments, only the files whose path
under test/ contains one of them (\`unit/\`, \`integration/\`, \`pgbench\`). \`npm test\` builds and
lints first.
  --fast      only the unit files and the integration files of tier fast (\`npm run test:fast\`)
  --list      print each selected file's tier and run nothing
  --also-lts  the unit files again on the LTS Node that \`npm run setup -- --tests\` puts in
              .cache/node-lts (DBLAB_NODE_LTS names another binary); the default without arguments
              or --fast
The tiers are the directive \`// test-tier: fast|shared|alone\` in a file's first lines (scripts/test.ts).`;

let only: readonly string[] = [];
let alsoLts = false;
let fast = false;
let list = false;
let files: string[] = [];
const tiers = new Map<string, Tier>();
try {
  const parsed = readCommandArgs(process.argv.slice(2), {
    help: { type: "boolean", short: "h" },
    "also-lts": { type: "boolean" },
    fast: { type: "boolean" },
    list: { type: "boolean" },
  });
  if (has(parsed, "help")) {
    console.log(USAGE);
    process.exit(0);
  }
  only = parsed.positionals;
  fast = has(parsed, "fast");
  list = has(parsed, "list");
  alsoLts = has(parsed, "also-lts") || (only.length === 0 && !fast);
  files = [...findTests(root), ...findTests(notebooksRoot)]
    .filter((f) => only.length === 0 || only.some((o) => selects(f, o)))
    .sort();
  for (const f of files) tiers.set(f, tierOf(f));
  if (fast) files = files.filter((f) => tiers.get(f) === "unit" || tiers.get(f) === "fast");
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  process.exit(refuse("test", e, "node build/scripts/test.js --help"));
}
if (files.length === 0) {
  const what = [...only, ...(fast ? ["--fast"] : [])];
  console.error(`no test files under ${root}${what.length ? ` matching ${what.join(", ")}` : ""}`);
  process.exit(1);
}
const tier = (file: string): Tier => tiers.get(file) ?? "alone";
if (list) {
  for (const f of files) console.log(`${tier(f).padEnd(6)}  ${relative(f)}`);
  process.exit(0);
}
// Tests never depend on a registry: the official images are used where the engine already has them,
// the stand-in otherwise (DBLAB_PULL=never is also the lab's default: lib/targets/docker/images.ts).
process.env.DBLAB_PULL ??= "never";

interface FileResult {
  readonly file: string;
  readonly tier: Tier;
  readonly seconds: number;
  /** CPU seconds of the file's process tree, where a cgroup could count them. */
  readonly cpuSeconds: number | undefined;
  readonly pass: number;
  readonly fail: number;
  readonly skipped: number;
  readonly status: number;
  /** What the table says beside the counts: an end without results, records left behind. */
  readonly notes: readonly string[];
  /** Each failed test and its error, from the failure reporter. */
  readonly failures: readonly ReportedFailure[];
}

interface Counts {
  readonly pass: number;
  readonly fail: number;
  readonly skipped: number;
  readonly status: number;
}

/** Per-run folders: the reporter's files, and the state and temporary folders of files that run beside others. */
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-t-"));
// Embedded servers run as an unprivileged user when the tests run as root: it must reach its data
// directory under a file's own TMPDIR, so every folder on the way is traversable.
fs.chmodSync(runDir, 0o755);
let serial = 0;

/** A state folder and a TMPDIR for one file run beside others (short paths: Unix sockets live below). */
function sandbox(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = path.join(runDir, String(++serial).padStart(3, "0"));
  const state = path.join(dir, "state");
  const tmp = path.join(dir, "tmp");
  fs.mkdirSync(state, { recursive: true });
  fs.mkdirSync(tmp);
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(tmp, 0o1777);
  return { dir, env: { DBLAB_STATE_DIR: state, TMPDIR: tmp } };
}

/** Records a file left in its own state folder: removed by `clean` (its servers, directories, containers). */
function cleanSandbox(dir: string): string[] {
  const records = path.join(dir, "state", "resources");
  const left = fs.existsSync(records) ? fs.readdirSync(records).filter((f) => f.endsWith(".json")) : [];
  const notes: string[] = [];
  if (left.length > 0) {
    notes.push(`left ${left.length} resource record(s) in its state folder; removed by clean`);
    spawnSync(process.execPath, [path.join(__dirname, "clean.js"), "--quiet"], {
      env: { ...process.env, DBLAB_STATE_DIR: path.join(dir, "state") },
      stdio: "inherit",
    });
  }
  if (!process.env.DBLAB_KEEP_TEST_OUTPUT) {
    try {
      // Retries cover a process still writing there as it exits (ENOTEMPTY); a failure is a note, not
      // a crash of the whole run.
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    } catch (e) {
      notes.push(`its sandbox ${dir} could not be removed: ${(e as Error).message}`);
    }
  }
  return notes;
}

/**
 * How long a file's processes may outlive it: a watcher that stops a killed run's servers, or a
 * server finishing its shutdown, ends within seconds; what is still there after this is named.
 */
const STRAGGLER_WAIT_S = 30;

/** What of the file still runs after waiting up to STRAGGLER_WAIT_S for it to end. */
async function outlived(meter: CpuMeter): Promise<Straggler[]> {
  const until = Date.now() + STRAGGLER_WAIT_S * 1000;
  let left = meter.stragglers();
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    left = meter.stragglers();
  }
  return left;
}

/** The reporter that writes each failed test as a JSON line (scripts/failure-reporter.ts). */
const FAILURE_REPORTER = path.join(__dirname, "failure-reporter.js");

/** The reporter's lines of one file: its failures, and its counts (none when it was killed first). */
function readReported(file: string): { failures: ReportedFailure[]; counts?: ReportedCounts } {
  if (!fs.existsSync(file)) return { failures: [] };
  const lines = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as ReportedLine];
      } catch {
        return []; // cut off by a killed file: its exit status still says it failed
      }
    });
  const failures = lines.flatMap((l) => ("failure" in l ? [l.failure] : []));
  const counts = lines.flatMap((l) => ("counts" in l ? [l.counts] : []))[0];
  return { failures, counts };
}

/** Lines of an error shown again at the end of the run. */
const ERROR_LINES = 15;

/**
 * Every failure again, after the file times: where a reader (or a CI excerpt) of a long log looks.
 * Tests of one file that failed with the same error (a failed `before` hook fails each of them) are
 * one entry, their names listed.
 */
function failureLines(results: readonly FileResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    const byMessage = new Map<string, string[]>();
    for (const f of r.failures) byMessage.set(f.message, [...(byMessage.get(f.message) ?? []), f.name]);
    for (const [message, names] of byMessage) {
      const lines = message.split("\n").filter((l) => l.trim() !== "");
      const who = names.length === 1 ? names[0] : `${names.length} tests, the same error: ${names.join("; ")}`;
      out.push(`✖ ${relative(r.file)}: ${who}`);
      for (const l of lines.slice(0, ERROR_LINES)) out.push(`    ${l}`);
      if (lines.length > ERROR_LINES)
        out.push(`    … ${lines.length - ERROR_LINES} more line(s) in the file's output above`);
    }
  }
  return out;
}

function countsOf(reported: ReportedCounts | undefined, status: number): Counts {
  const c = reported ?? { pass: 0, fail: 0, cancelled: 0, skipped: 0 };
  return { pass: c.pass, fail: c.fail + c.cancelled, skipped: c.skipped, status };
}

const running = new Set<ReturnType<typeof spawn>>();
let interrupted: NodeJS.Signals | undefined;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    // Start nothing more; each running file gets the signal (a terminal's Ctrl-C reached them already).
    interrupted = sig;
    for (const child of running) child.kill(sig);
  });
}

/**
 * Runs one file on `node`: spec output for people, its failures and counts into a file
 * (failure-reporter.ts). `buffered`: its output is held and printed whole when it ends (other files
 * run meanwhile); else it goes straight out.
 */
function runFile(node: string, file: string, own: boolean, buffered: boolean, niced: boolean): Promise<FileResult> {
  const reportedFile = path.join(runDir, `${String(++serial).padStart(3, "0")}.jsonl`);
  const box = own ? sandbox() : undefined;
  const began = process.hrtime.bigint();
  const label = `${relative(file)} (${tier(file)}${node === process.execPath ? "" : `, ${node}`})`;
  const env: NodeJS.ProcessEnv = { ...process.env, ...box?.env };
  // The spec reporter colours only a terminal; the child's is a pipe when buffered.
  if (buffered && process.stdout.isTTY && env.FORCE_COLOR === undefined && env.NO_COLOR === undefined)
    env.FORCE_COLOR = "1";
  const child = spawn(
    node,
    [
      "--test",
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      `--test-reporter=${FAILURE_REPORTER}`,
      `--test-reporter-destination=${reportedFile}`,
      file,
    ],
    { env, stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit" },
  );
  // Its children inherit the priority.
  if (niced && child.pid !== undefined) os.setPriority(child.pid, NICE);
  const meter = child.pid === undefined ? undefined : cpuMeter(`dblab-test-${process.pid}-${serial}`);
  if (meter && child.pid !== undefined) meter.add(child.pid);
  running.add(child);
  const held: { readonly err: boolean; readonly chunk: Buffer }[] = [];
  child.stdout?.on("data", (chunk: Buffer) => held.push({ err: false, chunk }));
  child.stderr?.on("data", (chunk: Buffer) => held.push({ err: true, chunk }));
  if (buffered) console.log(`▶ ${label}: started`);
  else console.log(`\n▶ ${label}`);
  return new Promise((resolve) => {
    const ended = async (code: number | null, signal: NodeJS.Signals | null): Promise<void> => {
      running.delete(child);
      const seconds = Number(process.hrtime.bigint() - began) / 1e9;
      const left = meter ? await outlived(meter) : [];
      const cpuSeconds = meter?.end();
      if (buffered) {
        console.log(`\n▶ ${label}: ${seconds.toFixed(1)} s`);
        for (const { err, chunk } of held) (err ? process.stderr : process.stdout).write(chunk);
      }
      const status = code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1);
      const reported = readReported(reportedFile);
      const counts = countsOf(reported.counts, status);
      const notes = [
        ...(left.length > 0
          ? [
              `left ${left.length} process(es) running ${STRAGGLER_WAIT_S} s after it ended: ${left
                .map((p) => `${p.pid} ${p.command || "(exited)"}`)
                .join("; ")}`,
            ]
          : []),
        ...(box ? cleanSandbox(box.dir) : []),
      ];
      let fail = counts.fail;
      if (status !== 0 && fail === 0) {
        // A file that crashed or was killed before its tests reported: one failure, not a silent pass.
        notes.push(`ended with ${signal ?? `status ${status}`} and no failed test reported`);
        fail = 1;
      }
      const failures = reported.failures;
      resolve({
        file,
        tier: tier(file),
        seconds,
        cpuSeconds,
        pass: counts.pass,
        fail,
        skipped: counts.skipped,
        status,
        notes,
        failures,
      });
    };
    child.on("close", (code, signal) => void ended(code, signal));
  });
}

/** The last run's seconds per file, which orders the pools (longest first); only the order depends on it. */
const timesFile = path.join(projectRoot, ".cache", "test-durations.json");
/**
 * The seconds per file of a fresh-clone `bash .ci/run` here, for a checkout that has not run the
 * suite yet. Ordered by name instead, a long file starts wherever its name falls, and one that starts
 * late (the fault matrix took 12 min) runs by itself at the end while the other slot stays empty.
 */
const committedTimesFile = path.join(projectRoot, "test", "durations.json");
function readTimes(file: string): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    if (parsed && typeof parsed === "object")
      return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => typeof e[1] === "number"));
  } catch {
    // none yet, or unreadable: the pools go in name order
  }
  return {};
}
function writeTimes(results: readonly FileResult[]): void {
  const times = { ...previous };
  for (const r of results) times[relative(r.file)] = Math.round(r.seconds * 10) / 10;
  try {
    fs.mkdirSync(path.dirname(timesFile), { recursive: true });
    fs.writeFileSync(timesFile, JSON.stringify(times, null, 1) + "\n");
  } catch {
    // a read-only checkout: the next run orders by name
  }
}
const previous = { ...readTimes(committedTimesFile), ...readTimes(timesFile) };

/**
 * Runs `queue` on `node`, `slots` at a time, each in a state folder and TMPDIR of its own when
 * `own`, and never two host files at once; longest first by the last run's times, so that a long
 * file does not start last and then run by itself while the other slots stay empty. A slot whose
 * next file is a host file while another host file runs takes the longest file that shares nothing.
 */
async function runFiles(
  node: string,
  queue: readonly string[],
  slots: number,
  own: boolean,
  niced: boolean,
): Promise<FileResult[]> {
  // A file not timed yet counts as long (it might be), a shared one before a fast one; ties by name.
  const weight = (f: string): number => previous[relative(f)] ?? (tier(f) === "fast" ? 1e6 : 1e7);
  const ordered = [...queue].sort((a, b) => weight(b) - weight(a));
  // Niced files run beside the pool: their output waits too.
  const buffered = niced || (slots > 1 && ordered.length > 1);
  return runPool(ordered, { slots, exclusive: (f) => tier(f) === "host", keepGoing: () => !interrupted }, (f) =>
    runFile(node, f, own, buffered, niced),
  );
}

/** Preparation that files running at once would race on: the project-local kernelspec, written on first use. */
function prepareShared(): void {
  try {
    // Two kernels' first starts would both write kernel.json and its module link (a reader can see a
    // half-written file, the second link fails EEXIST); written once here, later calls find it as it is.
    ensureKernelSpec();
  } catch {
    // no tslab or Jupyter here: the files that need them skip, with their own reason
  }
}

/** The second Node for the unit files, or why there is none. */
function ltsNode(): { node: string; version: string } | { missing: string } {
  const node = process.env.DBLAB_NODE_LTS || path.join(projectRoot, ".cache", "node-lts", "bin", "node");
  if (!fs.existsSync(node)) return { missing: `no LTS Node at ${node} (npm run setup -- --tests fetches it)` };
  const version = spawnSync(node, ["--version"], { encoding: "utf8" });
  if (version.status !== 0) return { missing: `${node} does not run: ${version.stderr || String(version.error)}` };
  return { node, version: version.stdout.trim() };
}

function sum(results: readonly FileResult[]): Counts {
  return {
    pass: results.reduce((n, r) => n + r.pass, 0),
    fail: results.reduce((n, r) => n + r.fail, 0),
    skipped: results.reduce((n, r) => n + r.skipped, 0),
    status: results.find((r) => r.status !== 0)?.status ?? 0,
  };
}

const minutes = (s: number): string =>
  s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;

async function main(): Promise<number> {
  const began = Date.now();
  const cpuAtStart = readCpuTimes();
  const phases: string[] = [];
  const phase = async (name: string, work: () => Promise<FileResult[]>): Promise<FileResult[]> => {
    const start = Date.now();
    const results = await work();
    if (results.length > 0) phases.push(`${name} ${minutes((Date.now() - start) / 1000)}`);
    return results;
  };
  const unitFiles = files.filter((f) => tier(f) === "unit");
  const pooled = files.filter((f) => tier(f) === "fast" || tier(f) === "shared" || tier(f) === "host");
  const alone = files.filter((f) => tier(f) === "alone");
  if (pooled.length > 1) prepareShared();
  // The second Node for the unit files, or why they do not run again.
  const lts = alsoLts && unitFiles.length > 0 ? ltsNode() : undefined;
  const ltsSkipped =
    lts === undefined
      ? undefined
      : "missing" in lts
        ? lts.missing
        : lts.version === process.version
          ? `${lts.node} is this Node (${lts.version})`
          : undefined;
  const ltsRun = lts && !("missing" in lts) && ltsSkipped === undefined ? lts : undefined;
  // Beside integration files the unit files run one at a time at a lower priority, on the CPU the
  // pool leaves idle (the fault matrix's namespace lane waits 134 s for dropped links with the CPU
  // idle): they take nothing from a file with bounds of its own, and leave the critical path.
  const beside = pooled.length > 0;
  const unitSlots = beside ? 1 : UNIT_AT_ONCE;
  const unitHow = beside ? "one at a time beside the integration files, niced" : `${UNIT_AT_ONCE} at once`;
  const unitWork = async (): Promise<{ own: FileResult[]; second: FileResult[]; secondSeconds: number }> => {
    const own = await phase(`unit (${unitHow})`, () => runFiles(process.execPath, unitFiles, unitSlots, true, beside));
    const start = Date.now();
    const second =
      ltsRun && !interrupted
        ? await phase(`unit on ${ltsRun.version} (${unitHow})`, () =>
            runFiles(ltsRun.node, unitFiles, unitSlots, true, beside),
          )
        : [];
    return { own, second, secondSeconds: (Date.now() - start) / 1000 };
  };
  const [unit, pooledResults] = await Promise.all([
    unitWork(),
    phase(`fast+shared+host (${MAX_INTEGRATION_AT_ONCE} at once, one host file)`, () =>
      runFiles(process.execPath, pooled, MAX_INTEGRATION_AT_ONCE, true, false),
    ),
  ]);
  const results = [
    ...unit.own,
    ...pooledResults,
    ...(await phase("alone", () => runFiles(process.execPath, alone, 1, false, false))),
  ];
  writeTimes(results);
  const failed: FileResult[] = [...results];
  const first = sum(results);
  const lines = [`on Node ${process.version}: ${first.pass} passed, ${first.fail} failed, ${first.skipped} skipped`];
  const total = { pass: first.pass, fail: first.fail, skipped: first.skipped };
  let status = first.status;
  const cpuMissing = cpuAccountingMissing();
  const cpu = (r: FileResult): string => (r.cpuSeconds === undefined ? "     –" : r.cpuSeconds.toFixed(0).padStart(6));
  const rows = results.map((r) => ({
    seconds: r.seconds,
    text: `${cpu(r)} s CPU  ${r.tier.padEnd(6)}  ${relative(r.file)}  ${r.pass} passed${r.fail ? `, ${r.fail} FAILED` : ""}${r.skipped ? `, ${r.skipped} skipped` : ""}${r.notes.map((n) => `; ${n}`).join("")}`,
  }));
  if (ltsSkipped !== undefined) {
    lines.push(`unit tests on the LTS Node: 1 skipped: ${ltsSkipped}`);
    total.skipped += 1;
  } else if (ltsRun && unit.second.length > 0) {
    failed.push(...unit.second.map((r) => ({ ...r, file: `${r.file} on Node ${ltsRun.version}` })));
    const second = sum(unit.second);
    const secondCpu = unit.second.reduce((n, r) => n + (r.cpuSeconds ?? 0), 0);
    rows.push({
      seconds: unit.secondSeconds,
      text: `${secondCpu.toFixed(0).padStart(6)} s CPU  unit    ${unitFiles.length} unit files on Node ${ltsRun.version}, all together`,
    });
    lines.push(
      `unit tests on Node ${ltsRun.version}: ${second.pass} passed, ${second.fail} failed, ${second.skipped} skipped`,
    );
    total.pass += second.pass;
    total.fail += second.fail;
    total.skipped += second.skipped;
    if (second.status !== 0) status = second.status;
  }
  rows.sort((a, b) => b.seconds - a.seconds);
  console.log(`\nfile times, slowest first (wall ${minutes((Date.now() - began) / 1000)}: ${phases.join(", ")})`);
  const { busyShare } = hostWindow(cpuAtStart, readCpuTimes(), (Date.now() - began) / 1000);
  const busy = busyShare === undefined ? "" : `; the machine's CPU was ${percent(busyShare, 0)} busy`;
  const cpuTotal = [...results, ...unit.second].reduce((n, r) => n + (r.cpuSeconds ?? 0), 0);
  console.log(
    cpuMissing
      ? `each file's wall time; its CPU time not measured: ${cpuMissing}${busy}`
      : `each file's wall time and CPU time (its own processes, containers not counted): ${cpuTotal.toFixed(0)} CPU s in all${busy}`,
  );
  for (const row of rows) console.log(`${row.seconds.toFixed(1).padStart(7)} s  ${row.text}`);
  const failures = failureLines(failed);
  if (failures.length > 0)
    console.log(`\nthe failures again (each file's output above has them in full):\n${failures.join("\n")}`);
  if (interrupted) {
    lines.push(`interrupted (${interrupted}): files not started are not counted`);
    if (status === 0) status = 130;
  }
  // The last line is the one CI reads: the totals over both Nodes.
  lines.push(`tests: ${total.pass} passed, ${total.fail} failed, ${total.skipped} skipped`);
  console.log(`\n${lines.join("\n")}`);
  if (!process.env.DBLAB_KEEP_TEST_OUTPUT) fs.rmSync(runDir, { recursive: true, force: true });
  return status;
}

main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
