/** 01's ETA model: each trial grows with the rows it writes; the adaptive rounds repeat the largest size. */
import { finiteOrNaN, type EtaModel, referencesIn } from "../eta";
import type { IndexWriteCostParams } from "./params";
import { planTrials } from "./workload/run-trials";
import { mongoUnavailable } from "./mongo-availability";

/** Each operation and index count grows at its own rate: an INSERT adds to every index, a counter UPDATE to none. */
function kindOf(c: { readonly operation?: unknown; readonly extraIndexes?: unknown }): string | undefined {
  return typeof c.operation === "string" && typeof c.extraIndexes === "number"
    ? `${c.operation} +${c.extraIndexes}`
    : undefined;
}

const unavailable = new Map<string, string | undefined>();

/** The engines that will run, asked once per the answer's inputs (it may run the docker CLI; asked every trial). */
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
      kind: kindOf(t.condition),
    }));
  },
  size: (c) => finiteOrNaN(c.rows),
  kind: kindOf,
  // Without stored runs: the rates fitted on reference machines (eta-reference*.json here).
  references: referencesIn(__dirname),
};
