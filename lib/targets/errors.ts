/**
 * The kinds of loss a target can report, as classes a caller tells apart with `instanceof`
 * (never by a message's wording, which a redaction or a translation may change).
 */

/**
 * The Docker host a server runs on went away or its link dropped (a Docker daemon stopped, an SSH
 * link to a remote Docker host cut). The run can go on once the host answers: resume it.
 */
export class DockerHostLossError extends Error {
  override readonly name: string = "DockerHostLossError";
}

/** True when `error`, or any error in its `cause` chain, is a Docker host's loss. */
export function causedByDockerHostLoss(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof DockerHostLossError) return true;
  }
  return false;
}
