/**
 * Each trial grows with its statements at its own kind's rate (docs/claims-and-regimes.md, "How long
 * a run takes here").
 */
import { finiteOrNaN, type EtaModel, type PlannedUnit, referencesIn } from "../eta";
import type { RoundTripsParams } from "./params";
import { trialKey, type RoundTripCondition } from "./workload/trials";

const kindOf = (c: RoundTripCondition) => (c.kind === "case" ? `case/${c.environment}/${c.case}` : `sweep/${c.level}`);

export const estimate: EtaModel<RoundTripsParams> = {
  units(p) {
    const units: PlannedUnit[] = [];
    const add = (c: RoundTripCondition, repeat: number, size: number) =>
      units.push({ key: trialKey(c, repeat), size, fixedSeconds: 0, kind: kindOf(c) });
    for (let r = 1; r <= p.repeats; r++) {
      for (const environment of p.environments)
        for (const c of p.cases) add({ kind: "case", environment, case: c, statements: p.statements }, r, p.statements);
      if (p.syncLevels.length)
        for (const standbyRttMs of p.sweepStandbyRttsMs)
          for (const level of p.syncLevels)
            add({ kind: "commit-level", level, standbyRttMs, commits: p.sweepCommits }, r, p.sweepCommits);
    }
    return units;
  },
  size: (c) => finiteOrNaN(c.statements ?? c.commits),
  kind: (c) =>
    (c.kind === "case" && typeof c.environment === "string" && typeof c.case === "string") ||
    (c.kind === "commit-level" && typeof c.level === "string")
      ? kindOf(c as RoundTripCondition)
      : undefined,
  references: referencesIn(__dirname),
  // The round trips and standby delays are this run's inputs: the same trials took the same time in a run whose
  // write path was slower (docs/claims-and-regimes.md, "How long a run takes here").
  waitsOn: "cpu",
};
