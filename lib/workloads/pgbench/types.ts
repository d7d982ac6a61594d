/** What a pgbench run yields, as plain data for a trial record: summary, progress, latency distribution. */

/** One `-P` progress line. */
export interface ProgressPoint {
  /** Seconds since the run started (pgbench's clock). */
  readonly second: number;
  /** Unix ms (`--progress-timestamp`). */
  readonly epochMs?: number;
  readonly tps: number;
  readonly latencyMs: number;
  readonly stddevMs: number;
  readonly failed?: number;
}

/** One line of `-r` output: a script command's average latency. */
export interface StatementLatency {
  /** 1-based, with several -f / -b. */
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
  /** Clients an error ended. */
  readonly abortedClients: number;
}

/** ms. */
export interface LatencyDistribution {
  readonly n: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** `--sampling-rate`; 1 = all. */
  readonly samplingRate: number;
}

/** Transactions finished in one time bucket, from the log. */
export interface SeriesPoint {
  /** Seconds since the run started. */
  readonly second: number;
  readonly epochMs: number;
  readonly transactions: number;
  /** Scaled up by the sampling rate. */
  readonly tps: number;
  readonly latencyAvgMs: number;
  readonly latencyMaxMs: number;
  /** Only from a per-transaction log. */
  readonly latencyP95Ms?: number;
}

export type PgbenchLogMode = "transactions" | "aggregate" | "none";

export interface PgbenchRunResult {
  /** No password: it travels in PGPASSWORD. */
  readonly args: readonly string[];
  /** e.g. "host /usr/lib/postgresql/15/bin/pgbench" or "container <id>". */
  readonly runner: string;
  readonly version: string;
  /** Unix ms. */
  readonly startedAtMs: number;
  /** When the first logged transaction began (after connecting and VACUUM); the series starts here. */
  readonly loadStartedAtMs: number;
  readonly finishedAtMs: number;
  readonly summary: PgbenchSummary;
  readonly progress: readonly ProgressPoint[];
  /** Per-bucket series from loadStartedAtMs; empty when logMode is "none". */
  readonly series: readonly SeriesPoint[];
  readonly latency?: LatencyDistribution;
  /** pgbench's last stderr lines besides progress. */
  readonly messages: readonly string[];
}
