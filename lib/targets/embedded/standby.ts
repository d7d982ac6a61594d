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
import type { ConnectionInfo, StandbyOptions, StandbySpec, StartedServer } from "../types";
import { chownRecursive, type OsUser } from "./postgres-binaries";
import { ignored } from "../../runtime/debug";

/** What making standbys needs of a primary: its data directory on this machine, stopped for the copy. */
export interface StandbyPrimary {
  readonly dataDirectory: string;
  readonly osUser: OsUser | undefined;
  readonly connection: ConnectionInfo;
  whileStopped<T>(fn: () => Promise<T> | T): Promise<T>;
  /** A server, not yet launched, that will run a copy of this primary's data from `rootDirectory`. */
  standbyServer(rootDirectory: string, name: string): StandbyServer;
}

/** A standby: a started server that runs from a copy of its primary's data directory. */
export interface StandbyServer extends StartedServer {
  readonly standbyName: string;
  launch(): Promise<void>;
  logTail(lines?: number): string;
}

const NAME = /^[a-z][a-z0-9_]{0,30}$/;

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

function prepareCopy(primary: StandbyPrimary, spec: StandbySpec, root: string): void {
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

/**
 * Makes standbys of `primary` (stopped briefly for the copy) and waits until the primary sees each
 * one streaming. On failure, every standby made so far is stopped and removed.
 */
export async function startStandbys(
  primary: StandbyPrimary,
  specs: readonly StandbySpec[],
  options: StandbyOptions = {},
): Promise<StandbyServer[]> {
  for (const s of specs) {
    if (!NAME.test(s.name))
      throw new Error(`standby name "${s.name}" must be lower-case letters, digits and _ (it is an application_name)`);
  }
  const standbys: StandbyServer[] = [];
  try {
    await primary.whileStopped(() => {
      allowLoopbackReplication(primary.dataDirectory);
      for (const spec of specs) {
        const root = fs.mkdtempSync(path.join(options.baseDir ?? os.tmpdir(), `dblab-pg-${spec.name}-`));
        // Constructed (and so registered) before the copy: a crash mid-copy leaves a record to clean.
        const standby = primary.standbyServer(root, spec.name);
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
  standbys: readonly StandbyServer[],
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
