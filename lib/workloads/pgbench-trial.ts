/** A planned trial's timed pgbench run: the plan's server, runner and stop signal, its settings' -c, -j and -T. */
import { f0 } from "../stats/format";
import { runPgbench, type PgbenchRunResult, type RunOptions } from "./pgbench";
import type { PgbenchPlanOptions, PlannedTrial } from "./trials";

export interface PgbenchLoad {
  readonly clients: number;
  readonly threads: number;
  readonly durationSeconds: number;
}

type Plan = Pick<
  PgbenchPlanOptions<object, PlannedTrial<object>, PgbenchLoad>,
  "server" | "runner" | "signal" | "settings"
>;

/** `rest`: what the trial adds (its script, hooks, log options). */
export function runTrialPgbench(
  o: Plan,
  database: string,
  rest: Omit<RunOptions, "runner" | "database" | keyof PgbenchLoad | "signal">,
): Promise<PgbenchRunResult> {
  const { clients, threads, durationSeconds } = o.settings;
  const load = { runner: o.runner, database, clients, threads, durationSeconds, signal: o.signal };
  return runPgbench(o.server, { ...load, ...rest });
}

/** A finished trial as a progress line names it: its key, and its pgbench run unless the trial failed first. */
export interface LastPgbenchTrial {
  readonly key: string;
  readonly pgbench?: Pick<PgbenchRunResult, "summary">;
}

/** A progress line's start, "last: <key> <tps> tps · "; empty before the first trial, n/a tps without a pgbench run. */
export function lastTrialText(last: LastPgbenchTrial | undefined): string {
  return last ? `last: ${last.key} ${f0(last.pgbench?.summary.tps)} tps · ` : "";
}
