/** The shared pgbench runner: locate, initialise, run, parse. */
export * from "./types";
export {
  initPgbench,
  runPgbench,
  clientToolEnv,
  pgbenchFailure,
  pgbenchFailureKind,
  PgbenchAbortedError,
  PgbenchError,
  type PgbenchFailureKind,
  type RunOptions,
  type InitResult,
} from "./run";
export {
  locatePgbench,
  findHostPgbench,
  findHostClientTool,
  describeRunner,
  PgbenchNotFoundError,
  type PgbenchRunner,
} from "./locate";
export { parseProgress, parseProgressLine, parseSummary, statementLatency } from "./parse-output";
export {
  latencyDistribution,
  parseTransactionLog,
  parseAggregateLog,
  transactionSeries,
  aggregateSeries,
} from "./parse-log";
export {
  checkInitOptions,
  checkLoadOptions,
  type BuiltinScript,
  type PgbenchInitOptions,
  type PgbenchLoadOptions,
  type PgbenchScript,
} from "./args";
export { stepCoordinates } from "./series";
export { pgbenchFigures, pgbenchOutcome, type PgbenchFigures } from "./figures";
export { waitForPgbenchGone } from "./sessions";
