/**
 * An error the run's input caused (a schema line the server refuses, a script pgbench rejects): it
 * fails the same way every time, so the run is recorded as refused, not resumable. `byInput: false`
 * for one of the same kind the input did not cause (a server gone mid-file).
 */
export class InputError extends Error {
  override readonly name: string = "InputError";
  readonly byInput: boolean;
  constructor(message: string, options?: { readonly cause?: unknown; readonly byInput?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.byInput = options?.byInput ?? true;
  }
}

/** The error or one of its causes is an InputError the input caused. */
export function isInputError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof InputError) return e.byInput;
  }
  return false;
}
