/** A finished run read back from its folder, to summarise or show again without rerunning it. */
import fs from "node:fs";
import path from "node:path";
import type { RoundTripsParams } from "./params";
import type { RunMetadata } from "../../results/metadata";
import { resultsRoot } from "../../results/run-store";
import type { RoundTripTrial } from "./workload/trials";
import type { CalibrationRecord } from "./workload/links";
import type { RoundTripsRun } from "./phases";

interface CalibrationFile {
  readonly baselines: Record<string, number>;
  readonly calibrations: CalibrationRecord[];
  readonly network: { kind: string; reason: string } | null;
}

/** Reads `data/results/<runId>` (or any folder path) written by `run`. */
export function loadRun(runIdOrDirectory: string): RoundTripsRun {
  const directory = fs.existsSync(runIdOrDirectory) ? runIdOrDirectory : path.join(resultsRoot(), runIdOrDirectory);
  const read = <T>(name: string): T => JSON.parse(fs.readFileSync(path.join(directory, name), "utf8")) as T;
  const trials = fs
    .readFileSync(path.join(directory, "trials.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as RoundTripTrial];
      } catch {
        // A torn last line (the run was killed mid-write); the whole trials before it still load.
        return [];
      }
    });
  const metadata = read<RunMetadata>("metadata.json");
  const calibration = fs.existsSync(path.join(directory, "calibration.json"))
    ? read<CalibrationFile>("calibration.json")
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
    params: read<RoundTripsParams>("params.json"),
    trials,
    metadata,
    calibrations: calibration.calibrations,
    baselines: calibration.baselines,
    network: calibration.network ?? { kind: "none", reason: "no link was needed" },
    skipped,
  };
}
