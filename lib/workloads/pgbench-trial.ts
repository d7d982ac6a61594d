/** A planned trial's timed pgbench run: the plan's server, runner and stop signal, its settings' -c, -j and -T. */
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
