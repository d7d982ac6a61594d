/**
 * Whether MongoDB will run here, decided before any start (the plan names why, the ETA leaves it out), and 01's ETA
 * model: each trial grows with the rows it writes; the adaptive rounds repeat the largest size.
 */
import { execFileSync } from "node:child_process";
import { ENGINE_FACTS } from "../../targets/engines";
import { MONGO_IMAGE } from "../../targets/docker/images";
import { findMongod } from "../../targets/embedded/mongod-path";
import { finiteOrNaN, type EtaModel, referencesIn } from "../eta";
import type { ClaimCheck, ClaimPlan } from "../../stats/claims";
import { CLAIMS, NO_RUN } from "./claims";
import type { IndexWriteCostParams } from "./params";
import { planTrials } from "./workload/run-trials";

/** Docker starts MongoDB only from a local image: asked synchronously (the ETA line is computed before any start). */
function dockerHasImage(image: string): boolean {
  try {
    execFileSync("docker", ["image", "inspect", image], { stdio: "ignore", timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Why MongoDB will not run, by the facts its start meets; undefined when it can. */
export function mongoUnavailable(p: Pick<IndexWriteCostParams, "engines" | "target">): string | undefined {
  if (!p.engines.includes("mongodb")) return "MongoDB did not run: not in `engines`";
  if (process.env[ENGINE_FACTS.mongodb.uriVariable]) return undefined;
  const target = process.env.DBLAB_TARGET ?? p.target;
  if (target === "external") return `MongoDB did not run: no ${ENGINE_FACTS.mongodb.uriVariable} given`;
  if (findMongod()) return undefined;
  if (target === "docker" && dockerHasImage(MONGO_IMAGE)) return undefined;
  return (
    `MongoDB did not run: no mongod on PATH (or DBLAB_MONGOD), no ${ENGINE_FACTS.mongodb.uriVariable}, ` +
    (target === "docker" ? `no Docker image ${MONGO_IMAGE}` : `target ${target} (Docker only when asked for)`)
  );
}

/** The judged claims with why MongoDB did not run here (`reason`), where it did not. */
export const withMongoReason = (checks: ClaimCheck[], reason: string | undefined): ClaimCheck[] =>
  checks.map((c) =>
    reason ? { ...c, decidedBy: c.decidedBy.replace(NO_RUN.mongodb, `${NO_RUN.mongodb}: ${reason}`) } : c,
  );
/** The prospect with MongoDB's claims unavailable where it cannot start here (`mongo`: why). */
export const withMongoFacts = (plans: ClaimPlan[], mongo: string | undefined): ClaimPlan[] =>
  plans.map((x) => (mongo && needsMongo(x.id) ? { ...x, prospect: "unavailable", reason: mongo } : x));
const needsMongo = (id: string) => CLAIMS.claims.find((c) => c.id === id)?.absent?.reason.includes(NO_RUN.mongodb);

/** Each operation and index count grows at its own rate: an INSERT adds to every index, a counter UPDATE to none. */
function kindOf(c: { readonly operation?: unknown; readonly extraIndexes?: unknown }): string | undefined {
  return typeof c.operation === "string" && typeof c.extraIndexes === "number"
    ? `${c.operation} +${c.extraIndexes}`
    : undefined;
}

const unavailable = new Map<string, string | undefined>();

/** The engines that will run, asked once per the answer's inputs (it may run the docker CLI; asked every trial). */
function runningEngines(p: IndexWriteCostParams): IndexWriteCostParams["engines"] {
  const { DBLAB_TARGET, DBLAB_MONGODB_URI, DBLAB_MONGOD, PATH } = process.env;
  const key = [p.engines.join(","), DBLAB_TARGET ?? p.target, DBLAB_MONGODB_URI, DBLAB_MONGOD, PATH].join("|");
  if (!unavailable.has(key)) unavailable.set(key, mongoUnavailable(p));
  return unavailable.get(key) === undefined ? p.engines : p.engines.filter((e) => e !== "mongodb");
}

export const estimate: EtaModel<IndexWriteCostParams> = {
  units(params, maximal) {
    const p = { ...params, engines: runningEngines(params) };
    const extra = maximal
      ? planTrials({ ...p, rowCounts: [Math.max(...p.rowCounts)], growthRows: [], repeats: p.maxRepeats })
      : [];
    return [...planTrials(p), ...extra.filter((t) => t.repeat > p.repeats)].map((t) => ({
      key: t.key,
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
