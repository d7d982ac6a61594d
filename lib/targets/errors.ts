/** The kinds of loss a target reports, told apart with `instanceof`, never by a message's wording. */

/** The Docker host a server runs on went away or its link dropped; the run can resume once it answers. */
export class DockerHostLossError extends Error {
  override readonly name: string = "DockerHostLossError";
}

/** True when `error` or any error in its `cause` chain is a Docker host's loss. */
export function causedByDockerHostLoss(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof DockerHostLossError) return true;
  }
  return false;
}
