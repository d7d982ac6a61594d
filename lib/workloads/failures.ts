/** Why a trial failed, decided once and kept as the error's `cause`: asked by type, never by message. */
import { causedByDockerHostLoss, DockerHostLossError } from "../targets/errors";
import type { FailedTrial } from "../results/run-store";
import { InterruptedError } from "../runtime/interrupt";

export class StallError extends Error {
  override readonly name = "StallError";
}

export class ServerLostError extends Error {
  override readonly name = "ServerLostError";
}

export type FailureKind = "engine-lost" | "server-lost" | "stall" | "interrupted" | "error";

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

/** The one error class trials fail with. */
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

export function isDockerHostLoss(error: unknown): boolean {
  return error instanceof DockerHostLossError || failureOf(error) === "engine-lost";
}
