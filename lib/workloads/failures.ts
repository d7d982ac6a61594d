/**
 * Why a trial failed, decided once and kept as the error's `cause`: asked with `instanceof` or `failureOf`, never by
 * message.
 */
import { causedByDockerHostLoss, DockerHostLossError } from "../targets/errors";
import type { FailedTrial } from "../results/run-store";
import { InterruptedError } from "../runtime/interrupt";

/** No progress and no liveness answer for the bound (watchdog.ts). */
export class StallError extends Error {
  override readonly name = "StallError";
}

/** The server went away under a trial, the engine still there. */
export class ServerLostError extends Error {
  override readonly name = "ServerLostError";
}

/** What ended a trial: engine lost, server lost, stall, interrupt, or the trial's own error. */
export type FailureKind = "engine-lost" | "server-lost" | "stall" | "interrupted" | "error";

/** The kind of `error`, from its class and its cause chain. */
export function failureOf(error: unknown): FailureKind {
  if (error instanceof TrialFailedError) return error.failure;
  if (causedByDockerHostLoss(error)) return "engine-lost";
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof StallError) return "stall";
    if (e instanceof ServerLostError) return "server-lost";
    // The signal's own AbortError and pgbench's stopped run both carry this name.
    if (e instanceof InterruptedError || e.name === "AbortError") return "interrupted";
  }
  return "error";
}

/** A failed trial's record, with the error that ended it as `cause`: the one error class trials fail with. */
export class TrialFailedError extends Error {
  override readonly name = "TrialFailedError";
  readonly failure: FailureKind;
  constructor(
    readonly trial: FailedTrial<object, string>,
    options: { readonly cause: unknown },
  ) {
    super(`Trial ${trial.key} failed: ${trial.error}`, options);
    this.failure = failureOf(options.cause);
  }
}

/** The run can go on once the Docker host answers: the host's loss, or a trial failed by one. */
export function isDockerHostLoss(error: unknown): boolean {
  return error instanceof DockerHostLossError || failureOf(error) === "engine-lost";
}
