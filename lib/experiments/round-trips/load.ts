/** A finished run read back from its folder, to summarise or show again without rerunning it. */
import fs from "node:fs";
import path from "node:path";
import { resultsRoot } from "../../results/run-store";
import { readRun } from "../../results/stored-runs";
import { EXTRAS_FILE, readExtras } from "../define";
import type { RoundTripsParams } from "./params";
import type { PhasesResult } from "./workload/phases";
import type { RoundTripsRun } from "./summarise";
import type { RoundTripTrial } from "./workload/trials";

/** Reads `data/results/<runId>` (or any folder path) written by `run`; a torn last trial line is left out. */
export function loadRun(runIdOrDirectory: string): RoundTripsRun {
  const directory = fs.existsSync(runIdOrDirectory) ? runIdOrDirectory : path.join(resultsRoot(), runIdOrDirectory);
  const stored = readRun(directory);
  if (!stored.metadata || !stored.params) throw new Error(`${directory}: ${stored.problems.join("; ")}`);
  // What the workload returned; runs stored before the base kept extras.json have it in calibration.json.
  const file = [EXTRAS_FILE, "calibration.json"].map((f) => path.join(directory, f)).find((f) => fs.existsSync(f));
  // Runs before `skipped` was written there kept it only in their notes; no link: network null.
  const saved = (file ? readExtras(file) : {}) as Partial<PhasesResult>;
  const notes = (stored.metadata.notes ?? []).filter((n) => n.startsWith("not run here: "));
  return {
    runId: stored.metadata.runId,
    directory,
    params: stored.params as unknown as RoundTripsParams,
    trials: stored.trials as unknown as readonly RoundTripTrial[],
    metadata: stored.metadata,
    calibrations: saved.calibrations ?? [],
    baselines: saved.baselines ?? {},
    network: saved.network ?? { kind: "none", reason: "no link was needed" },
    skipped:
      saved.skipped ??
      notes.map((n) => {
        const [what, reason] = n.slice("not run here: ".length).split(" — ");
        return { what, reason: reason ?? "" };
      }),
  };
}
