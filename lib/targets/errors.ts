/**
 * The kinds of loss a target can report, as classes a caller tells apart with `instanceof`
 * (never by a message's wording, which a redaction or a translation may change).
 */

/**
 * The engine a server runs on went away or its link dropped (a Docker daemon stopped, an SSH link
 * to a remote engine cut). The run can go on once the engine answers: resume it.
 */
export class EngineLossError extends Error {
  override readonly name: string = "EngineLossError";
}

/** True when `error`, or any error in its `cause` chain, is an engine loss. */
export function causedByEngineLoss(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof EngineLossError) return true;
  }
  return false;
}
