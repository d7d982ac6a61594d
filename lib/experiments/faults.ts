/** Each notebook carries its fault-matrix cells (test/support/fault-matrix.ts): a new one joins from its folder. */

/** kernel-kill is SIGKILL to the kernel, as the OOM killer does: none of its cleanup runs. */
export type Fault = "link-drop" | "kill-9" | "sigstop" | "engine-stop" | "sigterm" | "kernel-kill";
export type FaultPoint = "batch" | "create-index" | "pgbench" | "quorum";

export interface FaultCell {
  readonly fault: Fault;
  readonly target: "embedded" | "docker" | "ssh" | "external";
  /** Seconds from the fault to the runner's exit, at most. */
  readonly boundSeconds: number;
  readonly env?: Readonly<Record<string, string>>;
  /** Run only when named in DBLAB_FAULT_CELLS (or DBLAB_FAULT_CELLS=all). */
  readonly byName?: boolean;
  /** A second, unfaulted run against the same server must finish while the faulted one is resumed. */
  readonly alongside?: boolean;
}

export interface FaultCells {
  /** On top of the smoke profile. */
  readonly overrides: readonly string[];
  readonly point: FaultPoint;
  readonly cells: readonly FaultCell[];
}
