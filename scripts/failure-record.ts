/**
 * What scripts/failure-reporter.ts writes (one JSON line each) and `npm test` reads: each failed
 * test, then one line with the file's counts.
 */
export interface ReportedFailure {
  readonly name: string;
  readonly message: string;
}

/** The runner's own summary of a file (its last `tests/pass/fail/…` diagnostics). */
export interface ReportedCounts {
  readonly pass: number;
  readonly fail: number;
  readonly cancelled: number;
  readonly skipped: number;
}

export type ReportedLine = { readonly failure: ReportedFailure } | { readonly counts: ReportedCounts };
