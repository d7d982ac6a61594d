/** 01's ETA model: each trial grows with the rows it writes; the adaptive rounds repeat the largest size. */
import { finiteOrNaN, type EtaModel } from "../eta";
import type { IndexWriteCostParams } from "./params";
import { planTrials } from "./workload/run-trials";
import { mongoUnavailable } from "./mongo-availability";

const unavailable = new Map<string, string | undefined>();

/**
 * The engines that will run: MongoDB's trials left out where it cannot start here. Asked once per
 * engines, target and the environment the answer reads, in a process: the time left asks after
 * every trial, and the question may run the docker CLI.
 */
function runningEngines(p: IndexWriteCostParams): IndexWriteCostParams["engines"] {
  const env = process.env;
  const key = [
    p.engines.join(","),
    env.DBLAB_TARGET ?? p.target,
    env.DBLAB_MONGODB_URI,
    env.DBLAB_MONGOD,
    env.PATH,
  ].join("|");
  if (!unavailable.has(key)) unavailable.set(key, mongoUnavailable(p));
  return unavailable.get(key) === undefined ? p.engines : p.engines.filter((e) => e !== "mongodb");
}

export const estimate: EtaModel<IndexWriteCostParams> = {
  units(params, maximal) {
    const p = { ...params, engines: runningEngines(params) };
    const largest = Math.max(...p.rowCounts);
    const extra = maximal
      ? planTrials({ ...p, rowCounts: [largest], growthRows: [], repeats: p.maxRepeats }).filter(
          (t) => t.repeat > p.repeats,
        )
      : [];
    return [...planTrials(p), ...extra].map((t) => ({
      key: `${t.condition.engine}/${t.condition.rows}/${t.condition.operation}/idx${t.condition.extraIndexes}/ff${t.condition.fillfactor ?? "-"}/r${t.repeat}`,
      size: t.condition.rows,
      fixedSeconds: 0,
    }));
  },
  size: (c) => finiteOrNaN(c.rows),
  // 40 stored smoke runs on the reference machine; the untimed part seen at one size only.
  reference: { timedPerSizeSeconds: 2.2e-5, overheadSeconds: 0.44, untimedPerSizeSeconds: 0, constantSetup: true },
};
