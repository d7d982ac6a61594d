/**
 * 05's ETA model: each trial grows with the statements (or commits) it sends, at its own kind's
 * rate. A statement's cost differs by two orders of magnitude between kinds (here at default: a
 * local SELECT 1 0.14 ms, a cross-AZ quorum commit 9 ms), so one median rate over every trial read
 * the many cheap ones: `full` printed "about 38 min" for case trials alone worth ~57 min at the
 * default run's own per-statement times (126 of 325 trials took 40 min). A kind is the
 * environment and case, or the sweep's commit level (its round trips at `full` include ones the
 * default does not run; the level's median over the ones it does stands for them).
 */
import { finiteOrNaN, type EtaModel, type PlannedUnit } from "../eta";
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
  // `npm run eta:reference` on a default run on the reference machine's kind (2-core Xeon, probe
  // 0.038–0.041 s), each kind at its own rate: they put a full run at about 48 min here, measured
  // 44 min 40 s; one rate over every trial (the earlier rates) said about 1 h 2 min.
  reference: {
    timedPerSizeSeconds: 8.6e-4,
    overheadSeconds: 0.081,
    untimedPerSizeSeconds: 0,
    constantSetup: true,
    kinds: {
      "case/local/select1": { size: 400, seconds: 0.028, exponent: 1, untimedSeconds: 0.01 },
      "case/local/update_autocommit": { size: 400, seconds: 0.17, exponent: 1, untimedSeconds: 0.079 },
      "case/local/update_one_transaction": { size: 400, seconds: 0.05, exponent: 1, untimedSeconds: 0.081 },
      "case/local/update_each_transaction": { size: 400, seconds: 0.18, exponent: 1, untimedSeconds: 0.081 },
      "case/local/prepared_autocommit": { size: 400, seconds: 0.12, exponent: 1, untimedSeconds: 0.084 },
      "case/local/prepared_one_transaction": { size: 400, seconds: 0.038, exponent: 1, untimedSeconds: 0.082 },
      "case/local/bulk_update": { size: 400, seconds: 0.007, exponent: 1, untimedSeconds: 0.08 },
      "case/same-az/select1": { size: 400, seconds: 0.1, exponent: 1, untimedSeconds: 0.015 },
      "case/same-az/update_autocommit": { size: 400, seconds: 0.24, exponent: 1, untimedSeconds: 0.082 },
      "case/same-az/update_one_transaction": { size: 400, seconds: 0.14, exponent: 1, untimedSeconds: 0.08 },
      "case/same-az/update_each_transaction": { size: 400, seconds: 0.46, exponent: 1, untimedSeconds: 0.084 },
      "case/same-az/prepared_autocommit": { size: 400, seconds: 0.21, exponent: 1, untimedSeconds: 0.087 },
      "case/same-az/prepared_one_transaction": { size: 400, seconds: 0.12, exponent: 1, untimedSeconds: 0.082 },
      "case/same-az/bulk_update": { size: 400, seconds: 0.007, exponent: 1, untimedSeconds: 0.081 },
      "case/cross-az/select1": { size: 400, seconds: 0.84, exponent: 1, untimedSeconds: 0.023 },
      "case/cross-az/update_autocommit": { size: 400, seconds: 1, exponent: 1, untimedSeconds: 0.089 },
      "case/cross-az/update_one_transaction": { size: 400, seconds: 0.88, exponent: 1, untimedSeconds: 0.096 },
      "case/cross-az/update_each_transaction": { size: 400, seconds: 2.8, exponent: 1, untimedSeconds: 0.095 },
      "case/cross-az/prepared_autocommit": { size: 400, seconds: 1, exponent: 1, untimedSeconds: 0.1 },
      "case/cross-az/prepared_one_transaction": { size: 400, seconds: 0.87, exponent: 1, untimedSeconds: 0.1 },
      "case/cross-az/bulk_update": { size: 400, seconds: 0.0091, exponent: 1, untimedSeconds: 0.098 },
      "case/quorum-same-az/select1": { size: 400, seconds: 0.12, exponent: 1, untimedSeconds: 0.034 },
      "case/quorum-same-az/update_autocommit": { size: 400, seconds: 1.3, exponent: 1, untimedSeconds: 0.16 },
      "case/quorum-same-az/update_one_transaction": { size: 400, seconds: 0.17, exponent: 1, untimedSeconds: 0.16 },
      "case/quorum-same-az/update_each_transaction": { size: 400, seconds: 1.7, exponent: 1, untimedSeconds: 0.15 },
      "case/quorum-same-az/prepared_autocommit": { size: 400, seconds: 1.3, exponent: 1, untimedSeconds: 0.15 },
      "case/quorum-same-az/prepared_one_transaction": { size: 400, seconds: 0.14, exponent: 1, untimedSeconds: 0.16 },
      "case/quorum-same-az/bulk_update": { size: 400, seconds: 0.012, exponent: 1, untimedSeconds: 0.17 },
      "case/quorum-cross-az/select1": { size: 400, seconds: 0.89, exponent: 1, untimedSeconds: 0.039 },
      "case/quorum-cross-az/update_autocommit": { size: 400, seconds: 2.1, exponent: 1, untimedSeconds: 0.15 },
      "case/quorum-cross-az/update_one_transaction": { size: 400, seconds: 0.95, exponent: 1, untimedSeconds: 0.15 },
      "case/quorum-cross-az/update_each_transaction": { size: 400, seconds: 3.8, exponent: 1, untimedSeconds: 0.15 },
      "case/quorum-cross-az/prepared_autocommit": { size: 400, seconds: 2, exponent: 1, untimedSeconds: 0.15 },
      "case/quorum-cross-az/prepared_one_transaction": { size: 400, seconds: 0.9, exponent: 1, untimedSeconds: 0.14 },
      "case/quorum-cross-az/bulk_update": { size: 400, seconds: 0.015, exponent: 1, untimedSeconds: 0.15 },
      "sweep/off": { size: 150, seconds: 0.02, exponent: 1, untimedSeconds: 0.022 },
      "sweep/local": { size: 150, seconds: 0.1, exponent: 1, untimedSeconds: 0.045 },
      "sweep/remote_write": { size: 150, seconds: 0.29, exponent: 1, untimedSeconds: 0.03 },
      "sweep/on": { size: 150, seconds: 0.27, exponent: 1, untimedSeconds: 0.029 },
      "sweep/remote_apply": { size: 150, seconds: 0.32, exponent: 1, untimedSeconds: 0.043 },
    },
  },
};
