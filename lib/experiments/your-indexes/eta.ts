/** 06's ETA model: runs of a fixed length; the clone and the counters around each grow with the data's scale. */
import fs from "node:fs";
import { finiteOrNaN, type EtaModel, referencesIn } from "../eta";
import type { YourIndexesParams } from "./params";
import { planRounds } from "./workload/run-trials";
import { planVariants, writtenIndexNames } from "./workload/variants";

/**
 * The secondary indexes 06 will drop one at a time: the names `existing` gives, or for "all" the
 * schema file's CREATE INDEX statements (those the server lists only once it has loaded the file;
 * an index behind a PRIMARY KEY or UNIQUE constraint is written inside CREATE TABLE or as ALTER
 * TABLE, so it is not counted, as the lab does not drop it). Unreadable: none (the run's own check
 * says why, before any server starts).
 */
export function indexesToDrop(p: Pick<YourIndexesParams, "existing" | "schema">): string[] {
  if (p.existing !== "all") return [...p.existing];
  let text = "";
  try {
    text = fs.readFileSync(p.schema, "utf8");
  } catch {
    return [];
  }
  return writtenIndexNames(text);
}

export const estimate: EtaModel<YourIndexesParams> = {
  units(p, maximal) {
    // The candidates' names are known once built: the estimate counts them, keys as the run makes them.
    const ids = planVariants(indexesToDrop(p), p.candidates).variants.map((v) => v.id);
    return planRounds(ids, maximal ? p.maxRepeats : p.repeats).map((t) => ({
      key: t.key,
      size: p.scale,
      fixedSeconds: p.durationSeconds,
    }));
  },
  size: (_c, p) => finiteOrNaN(p.scale),
  // Without stored runs: the rates fitted on reference machines (eta-reference*.json here).
  references: referencesIn(__dirname),
};
