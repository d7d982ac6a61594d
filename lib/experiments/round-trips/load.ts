/** A finished run read back from its folder, to summarise or show again without rerunning it. */
import fs from "node:fs";
import path from "node:path";
import { resultsRoot } from "../../results/run-store";
import { readRun } from "../../results/stored-runs";
import type { RoundTripsParams } from "./params";
import type { PhasesResult, RoundTripsRun } from "./phases";
import type { RoundTripTrial } from "./workload/trials";

/** Reads `data/results/<runId>` (or any folder path) written by `run`; a torn last trial line is left out. */
export function loadRun(runIdOrDirectory: string): RoundTripsRun {
  const directory = fs.existsSync(runIdOrDirectory) ? runIdOrDirectory : path.join(resultsRoot(), runIdOrDirectory);
  const stored = readRun(directory);
  if (!stored.metadata || !stored.params) throw new Error(`${directory}: ${stored.problems.join("; ")}`);
  const { metadata } = stored;
  const file = path.join(directory, "calibration.json");
  const calibration = fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, "utf8")) as Omit<PhasesResult, "skipped" | "network"> & {
        network: PhasesResult["network"] | null;
      })
    : { baselines: {}, calibrations: [], network: null };
  const skipped = (metadata.notes ?? [])
    .filter((n) => n.startsWith("not run here: "))
    .map((n) => {
      const [what, reason] = n.slice("not run here: ".length).split(" — ");
      return { what, reason: reason ?? "" };
    });
  return {
    runId: metadata.runId,
    directory,
    params: stored.params as unknown as RoundTripsParams,
    trials: stored.trials as unknown as readonly RoundTripTrial[],
    metadata,
    calibrations: calibration.calibrations,
    baselines: calibration.baselines,
    network: calibration.network ?? { kind: "none", reason: "no link was needed" },
    skipped,
  };
}
