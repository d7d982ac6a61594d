/**
 * The faults a notebook offers to the fault matrix (test/support/fault-matrix.ts): a run
 * small enough that a cell takes well under a minute and large enough that the fault lands mid-work,
 * the point of its work most exposed to a fault, and the cells tried there. Each experiment carries
 * its own, so a new notebook joins the matrix from its folder.
 */

/**
 * What goes wrong: a dropped link, the server killed or stopped, the Docker engine stopped, SIGTERM
 * to the runner, or the run's kernel killed with SIGKILL (as the OOM killer does: nothing of the
 * kernel's cleanup runs, the runner lives to say so).
 */
export type Fault = "link-drop" | "kill-9" | "sigstop" | "engine-stop" | "sigterm" | "kernel-kill";
/**
 * Where the server runs: embedded, the local Docker daemon, a Docker host over ssh:// (a namespace),
 * or an external server by URI (a PostgreSQL with ssl=on, reached with sslmode=verify-full).
 */
export type FaultTarget = "embedded" | "docker" | "ssh" | "external";
/** Where the fault lands: a statement the server is running, a CREATE INDEX, a pgbench run, a quorum trial. */
export type FaultPoint = "batch" | "create-index" | "pgbench" | "quorum";

export interface FaultCell {
  readonly fault: Fault;
  readonly target: FaultTarget;
  /** Seconds from the fault to the runner's exit, at most. */
  readonly boundSeconds: number;
  readonly env?: Readonly<Record<string, string>>;
  /** Run only when named in DBLAB_FAULT_CELLS (or DBLAB_FAULT_CELLS=all). */
  readonly byName?: boolean;
  /**
   * A second run of the notebook at the same time against the same server (an external one: two
   * users of one managed server), untouched by the fault: it must finish with its own trials while
   * the faulted run fails and is resumed beside it.
   */
  readonly alongside?: boolean;
}

export interface FaultCells {
  /** `--set` values (`key=JSON`) on top of the smoke profile. */
  readonly overrides: readonly string[];
  readonly point: FaultPoint;
  readonly cells: readonly FaultCell[];
}
