/**
 * A `node --test` reporter (`--test-reporter=<this file>`) that writes one JSON line per failed
 * test: its name and the error's message. `npm test` reads these files back and
 * lists every failure once more at the end of its output, beside the file times: a long run's log
 * is read from its ends, and a failure printed in the middle of 40 minutes of output is out of
 * sight of the excerpt a CI service shows. A reporter gets the runner's own events (the error
 * object itself), so nothing has to be parsed back out of TAP or spec text.
 */
import type { ReportedFailure } from "./failure-record";

/** The part of a `test:fail` event this reporter reads (node's `TestFail` type is not exported in 20). */
interface FailEvent {
  readonly type: string;
  readonly data?: {
    readonly name?: string;
    readonly details?: { readonly error?: unknown };
  };
}

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
  for await (const event of source) {
    if (event.type !== "test:fail") continue;
    const { message, subtests } = messageOf(event.data?.details?.error);
    // A test that failed only because one of its subtests did: the subtest is listed itself.
    if (subtests) continue;
    const failure: ReportedFailure = { name: event.data?.name ?? "(unnamed)", message };
    yield `${JSON.stringify(failure)}\n`;
  }
}

// node loads a reporter with import(): a CommonJS module's namespace default is module.exports,
// which must be the function itself (an `export default` would be { default: fn } there).
export = failureReporter;
