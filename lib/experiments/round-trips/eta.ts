/**
 * 05's ETA model: each trial grows with the statements (or commits) it sends, at its own kind's
 * rate. A statement's cost differs by two orders of magnitude between kinds (here at default: a
 * local SELECT 1 0.14 ms, a cross-AZ quorum commit 9 ms), so one median rate over every trial read
 * the many cheap ones: `full` printed "about 38 min" for case trials alone worth ~57 min at the
 * default run's own per-statement times (126 of 325 trials took 40 min). A kind is the
 * environment and case, or the sweep's commit level (its round trips at `full` include ones the
 * default does not run; the level's median over the ones it does stands for them).
 */
import { finiteOrNaN, type EtaModel, type PlannedUnit, referencesIn } from "../eta";
import type { RoundTripsParams } from "./params";

const caseKind = (environment: string, name: string) => `case/${environment}/${name}`;
const sweepKind = (level: string) => `sweep/${level}`;

export const estimate: EtaModel<RoundTripsParams> = {
  units(p) {
    const units: PlannedUnit[] = [];
    for (let r = 1; r <= p.repeats; r++) {
      for (const env of p.environments)
        for (const c of p.cases)
          units.push({
            key: `case/${env}/${c}/n${p.statements}/r${r}`,
            size: p.statements,
            fixedSeconds: 0,
            kind: caseKind(env, c),
          });
      if (p.syncLevels.length)
        for (const rtt of p.sweepStandbyRttsMs)
          for (const level of p.syncLevels)
            units.push({
              key: `sweep/${rtt}ms/${level}/n${p.sweepCommits}/r${r}`,
              size: p.sweepCommits,
              fixedSeconds: 0,
              kind: sweepKind(level),
            });
    }
    return units;
  },
  size: (c) => finiteOrNaN(c.statements ?? c.commits),
  kind: (c) =>
    c.kind === "case" && typeof c.environment === "string" && typeof c.case === "string"
      ? caseKind(c.environment, c.case)
      : c.kind === "commit-level" && typeof c.level === "string"
        ? sweepKind(c.level)
        : undefined,
  // Without stored runs: the rates fitted on reference machines (eta-reference*.json here).
  references: referencesIn(__dirname),
};
