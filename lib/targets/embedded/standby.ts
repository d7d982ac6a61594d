/**
 * Streaming-replication standbys of an embedded PostgreSQL primary, on the same machine.
 *
 * The embedded binaries have no pg_basebackup, so a standby is a cold copy: the primary stops
 * (a clean shutdown checkpoint), its data directory is copied, the primary starts again, and each
 * copy starts in standby mode (standby.signal) streaming from the primary through whatever
 * address it is given — a delay link's, to put the standby in another "AZ". Standbys run as the
 * primary's OS user with the primary's settings (a standby refuses smaller max_connections & co.),
 * are registered like any embedded server, and are deleted on stop.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import type { ConnectionInfo, ServerSettings } from "../types";
import { EmbeddedPostgresServer } from "./embedded-postgres";
import { chownRecursive } from "./postgres-binaries";
import { ignored } from "../../runtime/debug";

export interface StandbySpec {
  /** application_name the primary sees, and what synchronous_standby_names lists, e.g. "s1". */
  readonly name: string;
  /** Where the standby connects to reach the primary (a delay link, or the primary itself). */
  readonly upstreamHost: string;
  readonly upstreamPort: number;
}

/** Settings that only make sense on a primary, dropped from a standby's command line. */
const PRIMARY_ONLY = new Set(["synchronous_standby_names", "synchronous_commit"]);

const NAME = /^[a-z][a-z0-9_]{0,30}$/;

/**
 * A standby runs the primary's data (and so the primary's password) in its own directory; the
 * server machinery (spawn, readiness, registry, stop) is EmbeddedPostgresServer's.
 */
export class EmbeddedStandby extends EmbeddedPostgresServer {
  constructor(
    primary: EmbeddedPostgresServer,
    rootDirectory: string,
    readonly standbyName: string,
    private readonly primaryPassword: string,
  ) {
    const settings: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(primary.spec.settings ?? {})) if (!PRIMARY_ONLY.has(k)) settings[k] = v;
    settings.hot_standby = "on";
    super(
      primary.binaries,
      primary.osUser,
      rootDirectory,
      { engine: "postgresql", name: standbyName, settings: settings as ServerSettings },
      {},
    );
  }

  override get connection(): ConnectionInfo {
    return { ...super.connection, password: this.primaryPassword };
  }
}

function libpqQuote(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

function confQuote(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** Lets replication connections in from any loopback address (netem links use 127.0.0.x). */
export function allowLoopbackReplication(dataDirectory: string): void {
  const hba = path.join(dataDirectory, "pg_hba.conf");
  const text = fs.readFileSync(hba, "utf8");
  const line = "host replication all 127.0.0.0/8 scram-sha-256";
  if (!text.includes(line))
    fs.appendFileSync(
      hba,
      `\n# db-write-lab: standbys over emulated links\n${line}\nhost all all 127.0.0.0/8 scram-sha-256\n`,
    );
}

function prepareCopy(primary: EmbeddedPostgresServer, spec: StandbySpec, root: string): void {
  const data = path.join(root, "data");
  fs.mkdirSync(path.join(root, "socket"), { recursive: true });
  fs.cpSync(primary.dataDirectory, data, {
    recursive: true,
    // A stopped primary leaves no postmaster.pid; skip it anyway, and the old options file.
    filter: (src) => !/postmaster\.(pid|opts)$/.test(src),
  });
  fs.chmodSync(data, 0o700);
  fs.writeFileSync(path.join(data, "standby.signal"), "");
  const c = primary.connection;
  const conninfo = [
    `host=${spec.upstreamHost}`,
    `port=${spec.upstreamPort}`,
    `user=${c.user}`,
    `password=${libpqQuote(c.password)}`,
    `application_name=${spec.name}`,
    "sslmode=disable",
  ].join(" ");
  // Written to the data directory (mode 600), not the command line, where ps would show the password.
  fs.appendFileSync(path.join(data, "postgresql.auto.conf"), `\nprimary_conninfo = ${confQuote(conninfo)}\n`, {
    mode: 0o600,
  });
  chownRecursive(root, primary.osUser);
}

export interface StandbyOptions {
  /** How long to wait for every standby to stream (default 60 s). */
  readonly streamingTimeoutMs?: number;
  readonly baseDir?: string;
}

/**
 * Makes standbys of `primary` (stopped briefly for the copy) and waits until the primary sees each
 * one streaming. On failure, every standby made so far is stopped and removed.
 */
export async function startStandbys(
  primary: EmbeddedPostgresServer,
  specs: readonly StandbySpec[],
  options: StandbyOptions = {},
): Promise<EmbeddedStandby[]> {
  for (const s of specs) {
    if (!NAME.test(s.name))
      throw new Error(`standby name "${s.name}" must be lower-case letters, digits and _ (it is an application_name)`);
  }
  const standbys: EmbeddedStandby[] = [];
  try {
    await primary.whileStopped(() => {
      allowLoopbackReplication(primary.dataDirectory);
      for (const spec of specs) {
        const root = fs.mkdtempSync(path.join(options.baseDir ?? os.tmpdir(), `dblab-pg-${spec.name}-`));
        // Constructed (and so registered) before the copy: a crash mid-copy leaves a record to clean.
        const standby = new EmbeddedStandby(primary, root, spec.name, primary.connection.password);
        standbys.push(standby);
        prepareCopy(primary, spec, root);
      }
    });
    for (const standby of standbys) await standby.launch();
    await waitForStreaming(
      primary.connection,
      specs.map((s) => s.name),
      options.streamingTimeoutMs ?? 60_000,
      standbys,
    );
    return standbys;
  } catch (error) {
    for (const s of standbys) await s.stop().catch(ignored("standby: stop a standby after a failed start"));
    throw error;
  }
}

async function waitForStreaming(
  primary: ConnectionInfo,
  names: readonly string[],
  timeoutMs: number,
  standbys: readonly EmbeddedStandby[],
): Promise<void> {
  const client = new Client({ ...primary, connectionTimeoutMillis: 5000 });
  client.on("error", () => undefined);
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    let seen: string[] = [];
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ application_name: string }>(
        "SELECT application_name FROM pg_stat_replication WHERE state = 'streaming'",
      );
      seen = rows.map((r) => r.application_name);
      if (names.every((n) => seen.includes(n))) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    const logs = standbys.map((s) => `--- ${s.standbyName} ---\n${s.logTail(10)}`).join("\n");
    throw new Error(
      `standbys ${names.join(", ")} not all streaming after ${timeoutMs} ms (streaming: ${seen.join(", ") || "none"})\n${logs}`,
    );
  } finally {
    await client.end().catch(ignored("standby: end the streaming check's client"));
  }
}
