import fs from "node:fs";
import path from "node:path";

/** pgbench from DBLAB_PGBENCH, PATH, or Debian's /usr/lib/postgresql/<v>/bin. */
export function findPgbench(): string {
  const candidates = [
    process.env.DBLAB_PGBENCH,
    ...(process.env.PATH ?? "").split(path.delimiter).map((d) => path.join(d, "pgbench")),
    ...(fs.existsSync("/usr/lib/postgresql") ? fs.readdirSync("/usr/lib/postgresql").map((v) => `/usr/lib/postgresql/${v}/bin/pgbench`) : []),
  ].filter((p): p is string => Boolean(p));
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error("pgbench not found: install PostgreSQL client tools (npm run setup) or set DBLAB_PGBENCH");
  return found;
}
