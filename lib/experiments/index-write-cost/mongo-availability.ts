/** Whether 01's MongoDB half will run here, decided before any start: the plan names why, the ETA leaves it out. */
import { execFileSync } from "node:child_process";
import { ENGINE_FACTS } from "../../targets/engines";
import { MONGO_IMAGE } from "../../targets/docker/images";
import { findMongod } from "../../targets/embedded/mongod-path";

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
