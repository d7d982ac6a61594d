/**
 * `npm run bench`: the lab's own speed, measured in one run against the tools a user would
 * otherwise pick, and reported as ratios (these machines are noisy; absolute times do not carry).
 * Writes bench/results/latest.json and bench/results/latest.md.
 *   npm run bench -- --rows 100000 --skip-turnaround
 */
import fs from "node:fs";
import path from "node:path";
import { hostInfo, gitCommit } from "../lib/results/metadata";
import { benchWritePath, type WritePathResult } from "./write-path";
import { benchServerStart, benchSetup, type SetupResult, type StartResult } from "./setup-and-start";

/** The part of bench/delay-proxy's figures this table shows. */
interface DelayProxyFigures {
  readonly overheadAtZeroUs?: number;
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
  readonly errors: readonly string[];
}

function argValue(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const f2 = (x: number | undefined) => (x === undefined ? "n/a" : x.toFixed(2));
const ms = (x: number | undefined) => (x === undefined ? "n/a" : `${(x * 1000).toFixed(0)} ms`);

function markdown(r: BenchReport): string {
  const lines = [
    `# Lab benchmarks — ${r.date}`,
    "",
    `Machine: ${r.host.cpuModel}, ${r.host.cpus} CPUs, ${r.host.memoryGiB} GiB, ${r.host.platform}; commit ${r.commit}. One run; ratios only compare within it.`,
    "",
    "| figure | value | goal |",
    "|---|---|---|",
  ];
  for (const w of r.writePath ?? []) {
    lines.push(`| ${w.operation}, ${w.rows.toLocaleString("en-US")} rows: lab / pgbench (pipeline, -M ${w.pgbenchMode}${w.pgbenchMode === "extended" ? ": literal rows, parsed per statement" : ""}) | ${f2(w.ratio)} (${w.labSeconds.toFixed(2)} s vs ${w.pgbenchSeconds.toFixed(2)} s) | ≤ 1.10 |`);
    lines.push(`| ${w.operation}: share of the lab's batch time outside the server's execution | ${Math.round(w.outsideServerShare * 100)} % | |`);
  }
  if (r.setup) {
    lines.push(`| setup, ${r.setup.rows.toLocaleString("en-US")} rows: COPY / server-side generate_series | ${f2(r.setup.copyRatio)} (${r.setup.copySeconds.toFixed(2)} s vs ${r.setup.generateSeriesSeconds.toFixed(2)} s) | ≤ 1.5 |`);
    lines.push(`| setup: CREATE INDEX × 5 | ${r.setup.createFiveIndexesSeconds.toFixed(2)} s | |`);
    lines.push(`| reset: DROP+CREATE / TRUNCATE / CREATE DATABASE … TEMPLATE | ${ms(r.setup.reset.dropCreate)} / ${ms(r.setup.reset.truncate)} / ${ms(r.setup.reset.templateClone)} | fastest correct |`);
  }
  if (r.start) {
    lines.push(`| server start to first query: embedded | ${ms(r.start.embeddedStartSeconds)} | |`);
    lines.push(`| server start to first query: docker (${r.start.dockerNote ?? ""}) | ${ms(r.start.dockerStartSeconds)} | |`);
  }
  const proxy = r.delayProxy as DelayProxyFigures | undefined;
  if (proxy) {
    lines.push(`| delay proxy: own overhead at 0 ms (round trip) | ${proxy.overheadAtZeroUs?.toFixed(0)} µs | |`);
    for (const pt of proxy.points ?? []) {
      lines.push(
        `| delay proxy: ${pt.requestedMs} ms requested → added (closed loop / one-step calibrated) | ` +
          `${(pt.closedLoopAddedMs * 1000).toFixed(0)} µs / ${(pt.calibratedAddedMs * 1000).toFixed(0)} µs` +
          `${pt.closedLoopWithinGoal ? "" : " (outside goal)"} | ±${pt.toleranceUs.toFixed(0)} µs |`,
      );
    }
  }
  for (const e of r.errors) lines.push(`| error | ${e.replace(/\|/g, "/")} | |`);
  return `${lines.join("\n")}\n`;
}

async function main(): Promise<void> {
  const rows = argValue("--rows", 100_000);
  const errors: string[] = [];
  const attempt = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    process.stdout.write(`bench: ${name}…\n`);
    try {
      return await fn();
    } catch (error) {
      errors.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };
  const writePath = await attempt("write path vs pgbench", () => benchWritePath(rows));
  const setup = await attempt("setup and reset", () => benchSetup(argValue("--setup-rows", 1_000_000)));
  const start = await attempt("server start", () => benchServerStart());
  const delayProxy = await attempt("delay proxy", async () => {
    const file = path.join(__dirname, "delay-proxy.js");
    if (!fs.existsSync(file)) throw new Error("bench/delay-proxy is not built");
    const mod = (await import(file)) as { benchDelayProxy?: () => Promise<object> };
    if (!mod.benchDelayProxy) throw new Error("bench/delay-proxy exports no benchDelayProxy()");
    return mod.benchDelayProxy();
  });
  const report: BenchReport = { date: new Date().toISOString(), host: hostInfo(), commit: gitCommit(), writePath, setup, start, delayProxy, errors };
  const dir = path.resolve(__dirname, "..", "..", "bench", "results");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  const md = markdown(report);
  fs.writeFileSync(path.join(dir, "latest.md"), md);
  process.stdout.write(`\n${md}\nwritten to ${dir}/latest.{json,md}\n`);
  if (errors.length) process.exitCode = 1;
}

void main();
