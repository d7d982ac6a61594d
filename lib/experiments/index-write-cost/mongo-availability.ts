/**
 * Whether notebook 01's MongoDB half will run here, decided before anything starts: the claims'
 * plan names the reason, and the ETA leaves its trials out (counted, 01 at `full` printed "360
 * trials, about 35 min" for a run of 180 PostgreSQL trials, and the time left read 22 min with
 * 11 trials of ~25 s to go).
 */
import { execFileSync } from "node:child_process";
import { ENGINE_FACTS } from "../../targets/engines";
import { MONGO_IMAGE } from "../../targets/docker/images";
import { findMongod } from "../../targets/embedded/mongod-path";

/**
 * Docker can start MongoDB only from a local image (no registry answers): asked of the docker CLI,
 * synchronously, because a plan is computed for the ETA line before anything starts. A missing CLI,
 * a daemon that does not answer and a missing image all mean no.
 */
function dockerHasImage(image: string): boolean {
  try {
    execFileSync("docker", ["image", "inspect", image], { stdio: "ignore", timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Why MongoDB will not run, decided before the run by the facts its start meets (the engine left
 * out, its URI variable, a mongod on PATH, or the mongo image where the target is docker), or undefined
 * when it can run.
 */
export function mongoUnavailable(p: {
  readonly engines: readonly string[];
  readonly target: string;
}): string | undefined {
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
