/**
 * What a pgbench run yields, as plain data that goes straight into a trial record: the summary
 * pgbench prints, its per-second progress, and the latency distribution from its transaction log.
 */

/** One `-P` progress line. */
export interface ProgressPoint {
  /** Seconds since the run started (pgbench's own clock). */
  readonly second: number;
  /** Wall-clock time of the line, Unix ms (from `--progress-timestamp`), to align with other events. */
  readonly epochMs?: number;
  readonly tps: number;
  readonly latencyMs: number;
  readonly stddevMs: number;
  readonly failed?: number;
}

/** One line of `-r` output: the average latency of a script command. */
export interface StatementLatency {
  /** 1-based script number (more than one with several -f / -b). */
  readonly script: number;
  /** The command's first line, as pgbench prints it. */
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
  /** TPS without the initial connection time (pgbench ≥ 14), else the "excluding connections" figure. */
  readonly tps: number;
  readonly statements: readonly StatementLatency[];
  /** Clients that pgbench reported as aborted (an error ended their script). */
  readonly abortedClients: number;
}

/** Latency distribution of the logged transactions, ms. */
export interface LatencyDistribution {
  readonly n: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Fraction of transactions logged (`--sampling-rate`); 1 = all. */
  readonly samplingRate: number;
}

/** Transactions finished in one time bucket, from the log (per-transaction or aggregated). */
export interface SeriesPoint {
  /** Bucket start, seconds since the run started. */
  readonly second: number;
  /** Bucket start, Unix ms. */
  readonly epochMs: number;
  readonly transactions: number;
  /** Transactions per second in this bucket (scaled up by the sampling rate). */
  readonly tps: number;
  readonly latencyAvgMs: number;
  readonly latencyMaxMs: number;
  /** Only from a per-transaction log. */
  readonly latencyP95Ms?: number;
}

export type PgbenchLogMode = "transactions" | "aggregate" | "none";

export interface PgbenchRunResult {
  /** pgbench's arguments (no password: it travels in PGPASSWORD). */
  readonly args: readonly string[];
  /** "host /usr/lib/postgresql/15/bin/pgbench" or "container <id>". */
  readonly runner: string;
  readonly version: string;
  /** When pgbench was started (Unix ms). */
  readonly startedAtMs: number;
  /**
   * When the load itself began: the start of the first logged transaction (after connecting and,
   * without -n, pgbench's VACUUM). The series starts here; without a transaction log it equals
   * startedAtMs.
   */
  readonly loadStartedAtMs: number;
  readonly finishedAtMs: number;
  readonly summary: PgbenchSummary;
  readonly progress: readonly ProgressPoint[];
  /** Per-bucket series from the log, `durationSeconds` long from loadStartedAtMs; empty when logMode is "none". */
  readonly series: readonly SeriesPoint[];
  /** From a per-transaction log only. */
  readonly latency?: LatencyDistribution;
  /** The last lines pgbench wrote to stderr besides progress (warnings, aborted clients). */
  readonly messages: readonly string[];
}
