/** Where a mongod binary is, without loading the MongoDB driver (a run's plan asks before any server starts). */
import fs from "node:fs";
import path from "node:path";

/** The mongod on PATH (or DBLAB_MONGOD), or undefined. */
export function findMongod(): string | undefined {
  const explicit = process.env.DBLAB_MONGOD;
  if (explicit) return fs.existsSync(explicit) ? explicit : undefined;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "mongod");
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}
