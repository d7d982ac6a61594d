/**
 * A `node --test` reporter (`--test-reporter=<this file>`) that writes one JSON line per failed
 * test: its name and the error's message; and, last, the file's counts from the runner's own
 * summary. It is also what `npm test` counts from, so that a file runs with two reporters, not
 * three: with three, node's TestsStream warns "MaxListenersExceededWarning: … 11 end listeners"
 * (nodejs/node#57605, still open), once in every file's output. `npm test` reads these files back and
 * lists every failure once more at the end of its output, beside the file times: a long run's log
 * is read from its ends, and a failure printed in the middle of 40 minutes of output is out of
 * sight of the excerpt a CI service shows. A reporter gets the runner's own events (the error
 * object itself), so nothing has to be parsed back out of TAP or spec text.
 */
import type { ReportedCounts, ReportedLine } from "./failure-record";

/** The part of a `test:fail` event this reporter reads (node's `TestFail` type is not exported in 20). */
interface FailEvent {
  readonly type: string;
  readonly data?: {
    readonly name?: string;
    readonly nesting?: number;
    readonly message?: string;
    readonly details?: { readonly error?: unknown };
  };
}

/** The runner's summary diagnostics at the top level ("pass 3"); a later one replaces an earlier. */
const SUMMARY = /^(pass|fail|cancelled|skipped) (\d+)$/;

function messageOf(error: unknown): { message: string; subtests: boolean } {
  // The runner wraps what a test threw: an ERR_TEST_FAILURE whose cause is the thrown error.
  const wrapped = error as { failureType?: string; cause?: unknown; message?: string } | undefined;
  if (wrapped?.failureType === "subtestsFailed") return { message: "", subtests: true };
  const inner = wrapped?.cause ?? error;
  const text =
    inner instanceof Error
      ? inner.message
      : typeof inner === "string"
        ? inner
        : JSON.stringify(inner ?? wrapped?.message);
  return { message: text, subtests: false };
}

async function* failureReporter(source: AsyncIterable<FailEvent>): AsyncGenerator<string> {
  const counts: Record<keyof ReportedCounts, number> = { pass: 0, fail: 0, cancelled: 0, skipped: 0 };
  for await (const event of source) {
    if (event.type === "test:diagnostic" && event.data?.nesting === 0) {
      const m = SUMMARY.exec(event.data.message ?? "");
      if (m) counts[m[1] as keyof ReportedCounts] = Number(m[2]);
      continue;
    }
    if (event.type !== "test:fail") continue;
    const { message, subtests } = messageOf(event.data?.details?.error);
    // A test that failed only because one of its subtests did: the subtest is listed itself.
    if (subtests) continue;
    const line: ReportedLine = { failure: { name: event.data?.name ?? "(unnamed)", message } };
    yield `${JSON.stringify(line)}\n`;
  }
  const last: ReportedLine = { counts };
  yield `${JSON.stringify(last)}\n`;
}

// node loads a reporter with import(): a CommonJS module's namespace default is module.exports,
// which must be the function itself (an `export default` would be { default: fn } there).
export = failureReporter;
