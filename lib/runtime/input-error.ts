/**
 * An error the run's input caused (a schema line the server refuses, a script pgbench rejects, an
 * index name the schema lacks): the same input fails the same way every time, so resuming the run
 * cannot help. Its message says what to fix; the session records the run as refused (not
 * resumable) and, when no trial had finished, leaves no results folder behind. `byInput: false`
 * for an error of the same kind that the input did not cause (psql's FATAL when the server went
 * away mid-file), which a run resumed later may get past.
 */
export class InputError extends Error {
  override readonly name: string = "InputError";
  readonly byInput: boolean;
  constructor(message: string, options?: { readonly cause?: unknown; readonly byInput?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.byInput = options?.byInput ?? true;
  }
}

/** The error, or one of its causes, is an InputError the input caused. */
export function isInputError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof InputError) return e.byInput;
  }
  return false;
}
