/** 05's ETA model: each trial grows with the statements (or commits) it sends. */
import { finiteOrNaN, type EtaModel, type PlannedUnit } from "../eta";
import type { RoundTripsParams } from "./params";

export const estimate: EtaModel<RoundTripsParams> = {
  units(p) {
    const units: PlannedUnit[] = [];
    for (let r = 1; r <= p.repeats; r++) {
      for (const env of p.environments)
        for (const c of p.cases)
          units.push({ key: `case/${env}/${c}/n${p.statements}/r${r}`, size: p.statements, fixedSeconds: 0 });
      if (p.syncLevels.length)
        for (const rtt of p.sweepStandbyRttsMs)
          for (const level of p.syncLevels)
            units.push({
              key: `sweep/${rtt}ms/${level}/n${p.sweepCommits}/r${r}`,
              size: p.sweepCommits,
              fixedSeconds: 0,
            });
    }
    return units;
  },
  size: (c) => finiteOrNaN(c.statements ?? c.commits),
  reference: { timedPerSizeSeconds: 1.8e-3, overheadSeconds: 0, untimedPerSizeSeconds: 7.6e-4, constantSetup: false },
};
