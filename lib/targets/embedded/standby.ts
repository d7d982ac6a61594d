/**
 * Streaming-replication standbys of an embedded primary on this machine: without pg_basebackup each is
 * a cold copy of the stopped primary, streaming from the address it is given (a delay link's).
 */
import { embeddedBaseDir } from "./data-dir";
import fs from "node:fs";
import path from "node:path";
import { Client } from "pg";
import type {
  ConnectionInfo,
  ServerDescription,
  ServerSettings,
  StandbyOptions,
  StandbySpec,
  StartedServer,
} from "../types";
import { chownRecursive, type OsUser } from "./postgres-binaries";
import { ignored } from "../../runtime/debug";
import type { DockerEndpoint } from "../docker/endpoint";
import type { ReverseTunnel } from "../docker/ssh-docker-host";
import { handleErrors } from "../../runtime/error-events";
import { postgresClientConfig } from "../postgres-client";

/** A primary whose data directory is here, stopped for the copy. */
export interface StandbyPrimary {
  readonly dataDirectory: string;
  readonly osUser: OsUser | undefined;
  readonly connection: ConnectionInfo;
  whileStopped<T>(fn: () => Promise<T> | T): Promise<T>;
  /** A server, not yet launched, running a copy of this primary's data. */
  standbyServer(rootDirectory: string, name: string): StandbyServer;
  /** Its own settings less the primary-only ones. */
  standbySettings(): ServerSettings;
  readonly description: ServerDescription;
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
    // Skip postmaster.pid and the old options file.
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
  // In the data directory (mode 600), not the command line, where ps would show the password.
  fs.appendFileSync(path.join(data, "postgresql.auto.conf"), `\nprimary_conninfo = ${confQuote(conninfo)}\n`, {
    mode: 0o600,
  });
  chownRecursive(root, primary.osUser);
}

/** Makes standbys (the primary stopped briefly) and waits until each streams; on failure removes them all. */
export async function startStandbys(
  primary: StandbyPrimary,
  specs: readonly StandbySpec[],
  options: StandbyOptions = {},
): Promise<StartedServer[]> {
  for (const s of specs) {
    if (!NAME.test(s.name))
      throw new Error(`standby name "${s.name}" must be lower-case letters, digits and _ (it is an application_name)`);
  }
  // Loaded only when a standby goes to another engine: runs without Docker never load dockerode.
  const remote = specs.some((s) => s.on) ? await import("../docker/remote-standby") : undefined;
  const engines = new Map<StandbySpec, DockerEndpoint>();
  for (const s of specs) if (s.on && remote) engines.set(s, remote.standbyEngine(s.on));
  const locals: StandbyServer[] = [];
  const started: { readonly name: string; readonly server: StartedServer; logs(): Promise<string> }[] = [];
  const tunnels: { close(): void }[] = [];
  const copies: { spec: StandbySpec; root: string; tunnel: ReverseTunnel }[] = [];
  try {
    // Each remote standby's way back, open before primary_conninfo names it.
    const tunnelFor = new Map<StandbySpec, ReverseTunnel>();
    for (const s of specs) {
      const engine = engines.get(s);
      if (!engine || !remote) continue;
      const tunnel = await remote.reverseTunnelTo(engine, primary.connection.port);
      tunnels.push(tunnel);
      tunnelFor.set(s, tunnel);
    }
    await primary.whileStopped(() => {
      allowLoopbackReplication(primary.dataDirectory);
      for (const spec of specs) {
        const root = fs.mkdtempSync(path.join(options.baseDir ?? embeddedBaseDir(), `dblab-pg-${spec.name}-`));
        const tunnel = tunnelFor.get(spec);
        if (tunnel) {
          // A copy to upload: its replication comes in through the tunnel, from this machine's 127.0.0.1.
          copies.push({ spec, root, tunnel });
          prepareCopy(primary, { ...spec, upstreamHost: "127.0.0.1", upstreamPort: tunnel.remotePort }, root);
          continue;
        }
        // Registered before the copy: a crash mid-copy leaves a record.
        const standby = primary.standbyServer(root, spec.name);
        locals.push(standby);
        started.push({ name: spec.name, server: standby, logs: async () => standby.logTail(10) });
        prepareCopy(primary, spec, root);
      }
    });
    for (const standby of locals) await standby.launch();
    for (const { spec, root, tunnel } of copies) {
      const engine = engines.get(spec);
      if (!engine || !remote) continue;
      try {
        const standby = await remote.startRemoteStandby({
          name: spec.name,
          endpoint: engine,
          dataDirectory: path.join(root, "data"),
          settings: primary.standbySettings(),
          credentials: primary.connection,
          version: primary.description.version,
          tunnel,
        });
        started.push({ name: spec.name, server: standby, logs: () => standby.logs(10) });
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    }
    await waitForStreaming(
      primary.connection,
      specs.map((s) => s.name),
      options.streamingTimeoutMs ?? 60_000,
      started,
    );
    // In the order asked for.
    return specs.flatMap((spec) => started.filter((s) => s.name === spec.name).map((s) => s.server));
  } catch (error) {
    for (const s of started) await s.server.stop().catch(ignored("standby: stop a standby after a failed start"));
    for (const t of tunnels) t.close();
    for (const c of copies) fs.rmSync(c.root, { recursive: true, force: true });
    throw error;
  }
}

async function waitForStreaming(
  primary: ConnectionInfo,
  names: readonly string[],
  timeoutMs: number,
  standbys: readonly { readonly name: string; logs(): Promise<string> }[],
): Promise<void> {
  const client = new Client(postgresClientConfig(primary, { connectionTimeoutMillis: 5000 }));
  handleErrors(client, "standby: the primary's replication check");
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
    const logs = (await Promise.all(standbys.map(async (s) => `--- ${s.name} ---\n${await s.logs()}`))).join("\n");
    throw new Error(
      `standbys ${names.join(", ")} not all streaming after ${timeoutMs} ms (streaming: ${seen.join(", ") || "none"})\n${logs}`,
    );
  } finally {
    await client.end().catch(ignored("standby: end the streaming check's client"));
  }
}
