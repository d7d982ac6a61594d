/** The reader's SQL files run by psql: it reads what pg_dump writes and names a failing statement's file and line. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { InputError } from "../../../runtime/input-error";
import type { ConnectionInfo } from "../../../targets/types";
import { clientToolEnv, findHostClientTool } from "../../../workloads/pgbench";

export class SqlFileError extends InputError {
  override readonly name = "SqlFileError";
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly serverMessage: string,
    options?: { readonly cause?: unknown; readonly byInput?: boolean },
  ) {
    super(`${file}${line !== undefined ? `:${line}` : ""}: ${serverMessage}`, options);
  }
}

/** A dump's ownership, grants and pg_dump 17.6's `\restrict` (older psql lacks it) become comments (lines kept). */
const LEFT_OUT = [/^\s*ALTER\s+.*\sOWNER\s+TO\s+.*;\s*$/i, /^\s*(GRANT|REVOKE)\s.*;\s*$/i, /^\\(un)?restrict\b/];

export function withoutForeignRoles(text: string): string {
  return text
    .split("\n")
    .map((line) =>
      LEFT_OUT.some((re) => re.test(line)) ? `-- (left out by the lab) ${line.replace(/^\\/, "")}` : line,
    )
    .join("\n");
}

/** psql's first error line: `psql:<file>:<line>: ERROR:  <message>` (and its DETAIL/LINE lines). */
export function parsePsqlError(stderr: string, shownFile: string, ranFile: string): SqlFileError | undefined {
  const lines = stderr.split("\n");
  const at = lines.findIndex((l) => /^psql:.*:\d+: (ERROR|FATAL|PANIC):/.test(l) || /^psql: error:/.test(l));
  if (at < 0) return undefined;
  const m = /^psql:.*:(\d+): (?:ERROR|FATAL|PANIC):\s+(.*)$/.exec(lines[at]);
  const more = lines
    .slice(at + 1, at + 4)
    .filter((l) => /^(DETAIL|HINT|LINE \d+|CONTEXT):/.test(l))
    .map((l) => l.trim());
  const message = [m ? m[2] : lines[at].replace(/^psql: error:\s*/, ""), ...more]
    .join(" · ")
    .split(ranFile)
    .join(shownFile);
  // Only an ERROR is the file's; FATAL, PANIC and psql's own errors are the server's or the link's.
  return new SqlFileError(shownFile, m ? Number(m[1]) : undefined, message, {
    byInput: /^psql:.*:\d+: ERROR:/.test(lines[at]),
  });
}

export class PsqlNotFoundError extends Error {
  override readonly name = "PsqlNotFoundError";
}

export interface SqlFileOptions {
  readonly database: string;
  readonly variables?: Readonly<Record<string, string | number>>;
  readonly signal?: AbortSignal;
}

export async function runSqlFile(connection: ConnectionInfo, file: string, o: SqlFileOptions): Promise<void> {
  const psql = findHostClientTool("psql");
  if (!psql)
    throw new PsqlNotFoundError(
      "psql not found: it runs the schema and data files; install the PostgreSQL client tools (e.g. `apt-get install postgresql-client`) or put psql on PATH",
    );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-sql-"));
  const ran = path.join(dir, path.basename(file));
  try {
    fs.writeFileSync(ran, withoutForeignRoles(fs.readFileSync(file, "utf8")));
    const variables = Object.entries(o.variables ?? {}).flatMap(([k, v]) => ["-v", `${k}=${v}`]);
    const to = ["-h", connection.host, "-p", String(connection.port), "-U", connection.user, "-d", o.database];
    const args = ["-X", "-q", "-v", "ON_ERROR_STOP=1", ...variables, ...to, "-f", ran];
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve, reject) => {
      const child = spawn(psql, args, {
        env: clientToolEnv(connection),
        stdio: ["ignore", "ignore", "pipe"],
        signal: o.signal,
      });
      let err = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
      child.once("error", reject);
      child.once("close", (c) => resolve({ code: c ?? 1, stderr: err }));
    });
    if (code !== 0) {
      const said = `psql exited with ${code}: ${stderr.trim().split("\n").slice(-3).join(" · ")}`;
      throw parsePsqlError(stderr, file, ran) ?? new SqlFileError(file, undefined, said, { byInput: false });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
