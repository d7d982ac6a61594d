/** What a pgbench run yields, as plain data for a trial record: summary, progress, latency distribution. */

export interface ProgressPoint {
  /** pgbench's clock. */
  readonly second: number;
  /** Unix ms (`--progress-timestamp`). */
  readonly epochMs?: number;
  readonly tps: number;
  readonly latencyMs: number;
  readonly stddevMs: number;
  readonly failed?: number;
}

export interface StatementLatency {
  readonly script: number;
  readonly command: string;
  readonly latencyMs: number;
  readonly failures?: number;
  readonly retries?: number;
}

export interface PgbenchSummary {
  readonly transactionType?: string;
  readonly scalingFactor?: number;
  readonly clients?: number;
  readonly threads?: number;
  readonly durationSeconds?: number;
  readonly transactions: number;
  readonly failed: number;
  readonly latencyAvgMs?: number;
  readonly latencyStddevMs?: number;
  readonly initialConnectionMs?: number;
  /** TPS without the initial connection time (pgbench ≥ 14), else "excluding connections". */
  readonly tps: number;
  readonly statements: readonly StatementLatency[];
  readonly abortedClients: number;
}

export interface LatencyDistribution {
  readonly n: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly samplingRate: number;
}

export interface SeriesPoint {
  readonly second: number;
  readonly epochMs: number;
  readonly transactions: number;
  /** Scaled up by the sampling rate. */
  readonly tps: number;
  readonly latencyAvgMs: number;
  readonly latencyMaxMs: number;
  readonly latencyP95Ms?: number;
}

export type PgbenchLogMode = "transactions" | "aggregate" | "none";

export interface PgbenchRunResult {
  readonly args: readonly string[];
  readonly runner: string;
  readonly version: string;
  readonly startedAtMs: number;
  /** The first logged transaction's start (after connecting and VACUUM); the series starts here. */
  readonly loadStartedAtMs: number;
  readonly finishedAtMs: number;
  readonly summary: PgbenchSummary;
  readonly progress: readonly ProgressPoint[];
  /** Empty when logMode is "none". */
  readonly series: readonly SeriesPoint[];
  readonly latency?: LatencyDistribution;
  readonly messages: readonly string[];
}
