/**
 * Why a trial failed, decided once where the failure is seen and kept as the error's `cause`:
 * callers ask with `instanceof` or `failureOf(error)`, never by matching a message.
 */
import { causedByDockerHostLoss, DockerHostLossError } from "../targets/errors";
import type { FailedTrial } from "../results/run-store";
import { InterruptedError } from "../runtime/interrupt";

/** A server that neither progressed nor answered a liveness probe for the bound (watchdog.ts). */
export class StallError extends Error {
  override readonly name = "StallError";
}

/** The server itself went away under a trial (its disk full, its process gone), the engine still there. */
export class ServerLostError extends Error {
  override readonly name = "ServerLostError";
}

/**
 * What ended a trial: the engine (or its link) lost, the server lost, a stall, an interrupt (the
 * Notebook's Stop, SIGINT/SIGTERM), or the trial's own error (SQL, a bad result).
 */
export type FailureKind = "engine-lost" | "server-lost" | "stall" | "interrupted" | "error";

/** The kind of `error`, from its class and its cause chain. */
export function failureOf(error: unknown): FailureKind {
  if (error instanceof TrialFailedError) return error.failure;
  if (causedByDockerHostLoss(error)) return "engine-lost";
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e instanceof StallError) return "stall";
    if (e instanceof ServerLostError) return "server-lost";
    // AbortError: the signal's own (a DOMException) and pgbench's stopped run both carry this name.
    if (e instanceof InterruptedError || e.name === "AbortError") return "interrupted";
  }
  return "error";
}

/**
 * A trial that failed: its record (as appended to trials.jsonl) and, as `cause`, the error that
 * ended it, unchanged. The one error class a run's trials fail with (lib/workloads/trials.ts).
 */
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

/**
 * True when the run can go on once the Docker host answers (resume the run): the error is the
 * host's loss, or a trial's failure caused by one (recorded as "engine-lost" in trials.jsonl).
 */
export function isDockerHostLoss(error: unknown): boolean {
  return error instanceof DockerHostLossError || failureOf(error) === "engine-lost";
}
