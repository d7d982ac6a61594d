/**
 * `npm run bench`: the lab's own speed, measured in one run against the tools a user would
 * otherwise pick, and reported as ratios (these machines are noisy; absolute times do not carry).
 * Writes bench/results/latest.json and bench/results/latest.md.
 *   npm run bench -- --rows 100000 --setup-rows 1000000
 *   --skip-default     do not run the default profile (~23 min); quote the last `npm run reproduce` of it
 *   --skip-turnaround  run neither profile (smoke and default)
 *   --update-readme    put the table into docs/bench.md (between the bench:start and bench:end marks)
 *   --render-only      measure nothing: rewrite latest.md (and docs/bench.md) from latest.json
 */
import fs from "node:fs";
import path from "node:path";
import { hostInfo, gitCommit } from "../lib/results/metadata";
import { benchWritePath, type WritePathResult } from "./write-path";
import { benchServerStart, benchSetup, type SetupResult, type StartResult } from "./setup-and-start";
import { benchTurnaround, lastRecordedTurnaround, type TurnaroundResult } from "./turnaround";
import { has, lastValue, noPositionals, readCommandArgs, refuse, UsageError } from "../scripts/cli-args";
import { errorMessage } from "../lib/runtime/error-message";

/** The part of bench/delay-proxy's figures this table shows. */
interface DelayProxyFigures {
  readonly overheadAtZeroUs?: number;
  readonly barePipeOverheadUs?: number;
  readonly directRttMs?: number;
  readonly points?: readonly {
    readonly requestedMs: number;
    readonly toleranceUs: number;
    readonly calibratedAddedMs: number;
    readonly closedLoopAddedMs: number;
    readonly closedLoopWithinGoal: boolean;
  }[];
}

interface BenchReport {
  readonly date: string;
  readonly host: ReturnType<typeof hostInfo>;
  readonly commit: string;
  readonly writePath?: readonly WritePathResult[];
  readonly setup?: SetupResult;
  readonly start?: StartResult;
  readonly delayProxy?: object;
  readonly turnaround: readonly TurnaroundResult[];
  readonly errors: readonly string[];
}

const USAGE = `Usage: npm run bench -- [options]

The lab's own speed as ratios against pgbench and friends, into bench/results/latest.{json,md}
(about 25 minutes, most of it the default profile's turnaround).

Options:
  --rows N            rows of the write-path comparison (default 100000)
  --setup-rows N      rows of the setup and reset figures (default 1000000)
  --skip-default      do not run the default profile; quote the last \`npm run reproduce\` of it
  --skip-turnaround   run neither profile (smoke and default)
  --update-readme     put the table into docs/bench.md, which the README links (between the
                      bench:start and bench:end marks)
  --render-only       measure nothing: rewrite latest.md (and docs/bench.md) from latest.json
  --help              show this help`;

const BENCH_OPTIONS = {
  help: { type: "boolean", short: "h" },
  rows: { type: "string" },
  "setup-rows": { type: "string" },
  "skip-default": { type: "boolean" },
  "skip-turnaround": { type: "boolean" },
  "update-readme": { type: "boolean" },
  "render-only": { type: "boolean" },
} as const;

type BenchFlag = "skip-default" | "skip-turnaround" | "update-readme" | "render-only";

export interface BenchArgs {
  readonly help: boolean;
  readonly rows: number;
  readonly setupRows: number;
  readonly flags: ReadonlySet<BenchFlag>;
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const parsed = readCommandArgs(argv, BENCH_OPTIONS);
  noPositionals(parsed);
  const count = (name: "rows" | "setup-rows", fallback: number): number => {
    const raw = lastValue(parsed, name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a whole number ≥ 1, got "${raw}"`);
    return n;
  };
  const flags = new Set<BenchFlag>();
  for (const name of ["skip-default", "skip-turnaround", "update-readme", "render-only"] as const) {
    if (has(parsed, name)) flags.add(name);
  }
  return { help: has(parsed, "help"), rows: count("rows", 100_000), setupRows: count("setup-rows", 1_000_000), flags };
}

const ROOT = path.resolve(__dirname, "..", "..");
const RESULTS_DIR = path.join(ROOT, "bench", "results");

const f2 = (x: number | undefined) => (x === undefined ? "n/a" : x.toFixed(2));
const ms = (x: number | undefined) => (x === undefined ? "n/a" : `${(x * 1000).toFixed(0)} ms`);
const pct = (x: number) => `${Math.round(x * 100)} %`;
const minutes = (s: number) => {
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
};
const OPERATION_LABEL: Record<string, string> = {
  insert: "INSERT",
  update_nonindexed: "UPDATE counter (non-indexed)",
  update_one_field: "UPDATE field1",
  update_five_fields: "UPDATE field1..5",
};

/** "; median of 3 paired rounds, 0.93–0.97", where the report says what a ratio is the median of. */
const pairedRounds = (w: WritePathResult) =>
  w.rounds && w.ratioRange
    ? `; median of ${w.rounds} paired rounds, ${f2(w.ratioRange[0])}–${f2(w.ratioRange[1])}`
    : "";

function markdown(r: BenchReport): string {
  const lines = [
    `# Lab benchmarks — ${r.date}`,
    "",
    `Run of ${r.date.replace("T", " ").slice(0, 16)} UTC on ${r.host.cpuModel}, ${r.host.cpus} CPUs, ${r.host.memoryGiB} GiB, ${r.host.platform}; commit ${r.commit}. One run; ratios only compare within it.`,
    "",
    "| figure | value | goal |",
    "|---|---|---|",
  ];
  for (const w of r.writePath ?? []) {
    const op = OPERATION_LABEL[w.operation] ?? w.operation;
    lines.push(
      `| ${op}, ${w.rows.toLocaleString("en-US")} rows in batches of ${w.batchSize.toLocaleString("en-US")}: lab / pgbench (pipeline, -M prepared, same statements and rows) | ${f2(w.ratio)} (${w.labSeconds.toFixed(2)} s vs ${w.pgbenchSeconds.toFixed(2)} s${pairedRounds(w)}) | ≤ 1.10 |`,
    );
    lines.push(
      `| ${op}: share of the time outside the server's planning and execution, lab / pgbench | ${pct(w.outsideServerShare)} / ${pct(w.pgbenchOutsideServerShare)} | |`,
    );
    lines.push(
      `| ${op}: server time of pgbench's statements / the lab's (${w.batchSize.toLocaleString("en-US")} prepared statements vs 1) | ${f2(w.serverTimeRatio)} | |`,
    );
  }
  if (r.setup) {
    lines.push(
      `| setup, ${r.setup.rows.toLocaleString("en-US")} rows: COPY / server-side generate_series | ${f2(r.setup.copyRatio)} (${r.setup.copySeconds.toFixed(2)} s vs ${r.setup.generateSeriesSeconds.toFixed(2)} s) | ≤ 1.5 |`,
      ...(r.setup.copyAgainSeconds === undefined
        ? []
        : [
            `| setup: COPY of the same rows again (a later trial's load: the COPY text kept) / server-side generate_series | ${f2(r.setup.copyAgainSeconds / r.setup.generateSeriesSeconds)} (${r.setup.copyAgainSeconds.toFixed(2)} s) | |`,
          ]),
    );
    lines.push(`| setup: primary key + CREATE INDEX × 5 | ${r.setup.createFiveIndexesSeconds.toFixed(2)} s | |`);
    lines.push(
      `| reset: DROP+CREATE / TRUNCATE / CREATE DATABASE … TEMPLATE | ${ms(r.setup.reset.dropCreate)} / ${ms(r.setup.reset.truncate)} / ${ms(r.setup.reset.templateClone)} | fastest correct |`,
    );
  }
  if (r.start) {
    lines.push(`| server start to first query: embedded | ${ms(r.start.embeddedStartSeconds)} | |`);
    lines.push(
      `| server start to first query: docker (${r.start.dockerNote ?? ""}) | ${ms(r.start.dockerStartSeconds)} | |`,
    );
    const rtt = r.start.selectOneMs;
    if (rtt?.dockerBridge !== undefined && rtt.dockerPublished !== undefined) {
      lines.push(
        `| SELECT 1 round trip: docker through its published port (docker-proxy) / over the bridge, as the lab connects on Linux | ` +
          `${f2(rtt.dockerPublished / rtt.dockerBridge)} (${(rtt.dockerPublished * 1000).toFixed(0)} µs vs ${(rtt.dockerBridge * 1000).toFixed(0)} µs; embedded ${(rtt.embedded * 1000).toFixed(0)} µs) | |`,
      );
    }
  }
  for (const t of r.turnaround) {
    const per = t.notebooks.map((n) => `${n.id} ${n.seconds === null ? "—" : minutes(n.seconds)}`).join(", ");
    const failed = t.failed.length ? `; FAILED: ${t.failed.join(", ")}` : "";
    lines.push(
      `| turnaround, ${t.profile} profile, all notebooks, embedded (${t.source}): wall / goal | ${f2(t.wallSeconds / t.goalSeconds)} (${minutes(t.wallSeconds)}: ${per}${failed}) | ≤ 1.00 (${minutes(t.goalSeconds)}) |`,
    );
    lines.push(
      `| notebook kernel start, ${t.profile} run (median of ${t.notebooks.length}) | ${t.kernelStartSeconds === null ? "n/a" : `${t.kernelStartSeconds.toFixed(1)} s`} | |`,
    );
  }
  const proxy = r.delayProxy as DelayProxyFigures | undefined;
  if (proxy) {
    lines.push(
      `| delay proxy at 0 ms: its own cost per round trip / a bare socket-to-socket pipe's (both in their own process; echo round trip ${((proxy.directRttMs ?? 0) * 1000).toFixed(0)} µs) | ` +
        `${f2((proxy.overheadAtZeroUs ?? NaN) / (proxy.barePipeOverheadUs ?? NaN))} (${proxy.overheadAtZeroUs?.toFixed(0)} µs vs ${proxy.barePipeOverheadUs?.toFixed(0)} µs) | ≈ 1: the rest is this machine's process wake-ups |`,
    );
    for (const pt of proxy.points ?? []) {
      lines.push(
        `| delay proxy: ${pt.requestedMs.toFixed(2)} ms round trip requested → added (closed loop, as notebook 05 does / one-step calibrated) | ` +
          `${(pt.closedLoopAddedMs * 1000).toFixed(0)} µs / ${(pt.calibratedAddedMs * 1000).toFixed(0)} µs` +
          `${pt.closedLoopWithinGoal ? "" : " (outside goal)"} | ±${pt.toleranceUs.toFixed(0)} µs |`,
      );
    }
  }
  for (const e of r.errors) lines.push(`| error | ${e.replace(/\|/g, "/")} | |`);
  return `${lines.join("\n")}\n`;
}

/** Replaces the table in docs/bench.md (the README links it) with this run's (the lines after the title). */
function updateReadme(file: string, md: string): void {
  const text = fs.readFileSync(file, "utf8");
  const begin = /<!-- bench:start[^>]*-->\n/.exec(text);
  const end = text.indexOf("<!-- bench:end -->");
  if (!begin || end < begin.index) throw new Error(`${file} has no <!-- bench:start --> … <!-- bench:end --> marks`);
  const table = md.slice(md.indexOf("\n") + 1).trim();
  fs.writeFileSync(file, `${text.slice(0, begin.index + begin[0].length)}${table}\n${text.slice(end)}`);
  process.stdout.write(`${path.relative(ROOT, file)} updated\n`);
}

/** latest.md from the report, on stdout too, and into docs/bench.md with --update-readme. */
function publish(report: BenchReport, args: BenchArgs): void {
  const md = markdown(report);
  fs.writeFileSync(path.join(RESULTS_DIR, "latest.md"), md);
  process.stdout.write(`\n${md}\nwritten to ${RESULTS_DIR}/latest.{json,md}\n`);
  if (args.flags.has("update-readme")) updateReadme(path.join(ROOT, "docs", "bench.md"), md);
}

async function main(args: BenchArgs): Promise<void> {
  if (args.flags.has("render-only")) {
    publish(JSON.parse(fs.readFileSync(path.join(RESULTS_DIR, "latest.json"), "utf8")) as BenchReport, args);
    return;
  }
  const rows = args.rows;
  const errors: string[] = [];
  const attempt = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    process.stdout.write(`bench: ${name}…\n`);
    try {
      return await fn();
    } catch (error) {
      errors.push(`${name}: ${errorMessage(error)}`);
      return undefined;
    }
  };
  const writePath = await attempt("write path vs pgbench", () => benchWritePath(rows));
  const setup = await attempt("setup and reset", () => benchSetup(args.setupRows));
  const start = await attempt("server start", () => benchServerStart());
  const delayProxy = await attempt("delay proxy", async () => {
    const file = path.join(__dirname, "delay-proxy.js");
    if (!fs.existsSync(file)) throw new Error("bench/delay-proxy is not built");
    const mod = (await import(file)) as { benchDelayProxy?: () => Promise<object> };
    if (!mod.benchDelayProxy) throw new Error("bench/delay-proxy exports no benchDelayProxy()");
    return mod.benchDelayProxy();
  });
  const turnaround: TurnaroundResult[] = [];
  if (!args.flags.has("skip-turnaround")) {
    const smoke = await attempt("turnaround, smoke profile", () => benchTurnaround("smoke"));
    if (smoke) turnaround.push(smoke);
    if (args.flags.has("skip-default")) {
      const last = lastRecordedTurnaround("default", path.join(ROOT, "reports"));
      if (last) turnaround.push(last);
      else
        errors.push(
          "turnaround, default profile: skipped (--skip-default) and no whole `npm run reproduce` default run in reports/run.json to quote",
        );
    } else {
      const full = await attempt("turnaround, default profile (~23 min)", () => benchTurnaround("default"));
      if (full) turnaround.push(full);
    }
  }
  const report: BenchReport = {
    date: new Date().toISOString(),
    host: hostInfo(),
    commit: gitCommit(),
    writePath,
    setup,
    start,
    delayProxy,
    turnaround,
    errors,
  };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(RESULTS_DIR, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  publish(report, args);
  if (errors.length) process.exitCode = 1;
}

if (require.main === module) {
  let args: BenchArgs | undefined;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.exitCode = refuse("bench", e);
  }
  if (args?.help) console.log(USAGE);
  else if (args) void main(args);
}
