/** A failed test as scripts/failure-reporter.ts writes it (one JSON line each) and `npm test` reads it. */
export interface ReportedFailure {
  readonly name: string;
  readonly message: string;
}
