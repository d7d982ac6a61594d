/**
 * PostgreSQL from npm binaries, no Docker: initdb into a fresh temporary directory, a free port on
 * 127.0.0.1, settings as `-c key=value`, removed again on stop.
 */
import { DATA_DIR_ENV, embeddedBaseDir, storageInfo, type StorageInfo } from "./data-dir";
import { checkDiskNeed } from "../disk-need";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { processStartTicks } from "../../runtime/resource-registry";
import { register, unregister } from "../../runtime/resources";
import { stopProcessSync } from "../../runtime/reaper";
import { installShutdownHooks } from "../../runtime/shutdown";
import { freePort, portInUse, randomPassword } from "../ports";
import { postgresProbe, waitUntilReady } from "../readiness";
import { postgresUri } from "../uri";
import { settingsToArgs } from "../settings";
import type {
  ConnectionInfo,
  ReplicationCapability,
  ServerDescription,
  ServerSettings,
  ServerSpec,
  StartedServer,
  Target,
} from "../types";
import { startStandbys, type StandbyPrimary, type StandbyServer } from "./standby";
import { handleErrors } from "../../runtime/error-events";
import {
  chownRecursive,
  embeddedPostgresBinaries,
  EMBEDDED_POSTGRES_VERSION,
  serverOsUser,
  type OsUser,
  type PostgresBinaries,
} from "./postgres-binaries";

export interface EmbeddedPostgresOptions {
  /** Default: the OS temp directory. */
  readonly baseDir?: string;
  /** Fails clearly when taken. */
  readonly port?: number;
  readonly startTimeoutMs?: number;
}

export class EmbeddedPostgresTarget implements Target {
  readonly kind = "embedded" as const;
  constructor(private readonly options: EmbeddedPostgresOptions = {}) {}

  async start(spec: ServerSpec): Promise<EmbeddedPostgresServer> {
    if (spec.engine !== "postgresql") throw new Error(`EmbeddedPostgresTarget runs PostgreSQL, not ${spec.engine}`);
    installShutdownHooks();
    const binaries = embeddedPostgresBinaries();
    const user = serverOsUser();
    const base = this.options.baseDir ?? embeddedBaseDir();
    if (spec.uses?.disk) {
      checkDiskNeed(
        spec.uses.disk,
        base,
        spec.uses.notebook,
        `free some, or set ${DATA_DIR_ENV} to a directory on a larger disk, or choose a smaller profile`,
      );
    }
    const root = fs.mkdtempSync(path.join(base, `dblab-pg-${spec.name ?? "server"}-`));
    const server = new EmbeddedPostgresServer(binaries, user, root, spec, this.options);
    try {
      await server.initialise();
      await server.launch();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }
}

export class EmbeddedPostgresServer implements StartedServer, StandbyPrimary {
  readonly kind = "embedded" as const;
  readonly engine = "postgresql" as const;
  readonly id: string;
  readonly dataDirectory: string;
  readonly socketDirectory: string;
  private readonly logFile: string;
  private child?: ChildProcess;
  private recordId?: string;
  private password = randomPassword();
  private port = 0;
  private version = "";
  private stopped = false;
  /** Its data directory is here, so standbys can be made from copies. */
  readonly replication: ReplicationCapability = {
    startStandbys: (specs, options) => startStandbys(this, specs, options),
  };

  constructor(
    readonly binaries: PostgresBinaries,
    readonly osUser: OsUser | undefined,
    readonly rootDirectory: string,
    readonly spec: ServerSpec,
    private readonly options: EmbeddedPostgresOptions,
  ) {
    this.id = path.basename(rootDirectory);
    this.dataDirectory = path.join(rootDirectory, "data");
    this.socketDirectory = path.join(rootDirectory, "socket");
    this.logFile = path.join(rootDirectory, "postgres.log");
    // Registered before initdb: a crash during setup leaves a record.
    this.recordId = register({
      type: "process",
      pid: process.pid,
      directory: rootDirectory,
      description: `embedded PostgreSQL directory ${rootDirectory}`,
    });
  }

  get connection(): ConnectionInfo {
    return { host: "127.0.0.1", port: this.port, user: "postgres", password: this.password, database: "postgres" };
  }

  get uri(): string {
    return postgresUri(this.connection);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the postmaster ended, once reaped (a pid probe alone still sees the zombie). */
  readonly processGone = (): Promise<string | undefined> => {
    const child = this.child;
    if (!child || (child.exitCode === null && child.signalCode === null)) return Promise.resolve(undefined);
    const how = child.signalCode ? `was killed by ${child.signalCode}` : `exited with code ${child.exitCode}`;
    return Promise.resolve(`its postmaster (pid ${child.pid}) ${how}`);
  };

  get description(): ServerDescription {
    return {
      engine: "postgresql",
      kind: "embedded",
      version: this.version,
      source: `${this.binaries.packageName}@${EMBEDDED_POSTGRES_VERSION}`,
      limits: this.spec.limits,
      settings: this.spec.settings,
      address: `127.0.0.1:${this.port}`,
      ...(this.storage ? { storage: this.storage } : {}),
    };
  }

  private storage?: StorageInfo;

  /** Password authentication over TCP; socket trust only for the server's own user. */
  async initialise(): Promise<void> {
    this.storage = storageInfo(this.rootDirectory);
    fs.mkdirSync(this.socketDirectory, { recursive: true });
    const pwfile = path.join(this.rootDirectory, "pwfile");
    fs.writeFileSync(pwfile, this.password, { mode: 0o600 });
    chownRecursive(this.rootDirectory, this.osUser);
    const result = spawnSync(
      this.binaries.initdb,
      [
        "-D",
        this.dataDirectory,
        "-U",
        "postgres",
        `--pwfile=${pwfile}`,
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
        "-E",
        "UTF8",
        "--no-locale",
        "--no-sync",
      ],
      { uid: this.osUser?.uid, gid: this.osUser?.gid, encoding: "utf8", env: this.childEnv() },
    );
    fs.rmSync(pwfile, { force: true });
    if (result.status !== 0) {
      throw new Error(`initdb failed (exit ${result.status}): ${result.stderr || result.error?.message || ""}`.trim());
    }
  }

  private childEnv(): NodeJS.ProcessEnv {
    // RPATH is relative to the binaries; a user's LD_LIBRARY_PATH must not shadow them with another libpq.
    return { PATH: process.env.PATH, LANG: "C", LC_ALL: "C", LD_LIBRARY_PATH: this.binaries.libDir };
  }

  async launch(): Promise<void> {
    // A restart keeps the port, so connection strings handed out stay valid.
    if (!this.port) {
      if (this.options.port !== undefined && (await portInUse(this.options.port))) {
        throw new Error(
          `port ${this.options.port} on 127.0.0.1 is in use: choose another port or leave it unset for a free one`,
        );
      }
      this.port = this.options.port ?? (await freePort());
    }
    const args = [
      "-D",
      this.dataDirectory,
      "-p",
      String(this.port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      `unix_socket_directories=${this.socketDirectory}`,
      ...settingsToArgs(this.spec.settings),
    ];
    const log = fs.openSync(this.logFile, "a");
    if (this.osUser) fs.fchownSync(log, this.osUser.uid, this.osUser.gid);
    const child = spawn(this.binaries.postgres, args, {
      uid: this.osUser?.uid,
      gid: this.osUser?.gid,
      env: this.childEnv(),
      // Own process group: a Ctrl-C in the terminal reaches the lab, which stops the server in order.
      detached: true,
      stdio: ["ignore", log, log],
    });
    fs.closeSync(log);
    this.child = child;
    let exited: string | undefined;
    child.once("exit", (code, signal) => {
      exited = `exited with ${signal ?? `code ${code}`}`;
    });
    handleErrors(child, "embedded PostgreSQL", (error) => (exited ??= `could not run (${error.message})`));
    if (this.recordId) unregister(this.recordId);
    this.recordId = register({
      type: "process",
      pid: child.pid ?? 0,
      pidStartTicks: child.pid ? processStartTicks(child.pid) : undefined,
      directory: this.rootDirectory,
      description: `embedded PostgreSQL pid ${child.pid} port ${this.port} in ${this.rootDirectory}`,
    });
    this.version = await waitUntilReady(postgresProbe(this.connection), {
      timeoutMs: this.options.startTimeoutMs ?? 60_000,
      intervalMs: 100,
      abortIf: () => {
        if (exited) throw new Error(`PostgreSQL ${exited} while starting:\n${this.logTail()}`);
      },
    });
  }

  logTail(lines = 20): string {
    try {
      return fs.readFileSync(this.logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      // Only for error messages: a missing log must not replace the error.
      return "(no server log)";
    }
  }

  private async shutdown(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // SIGINT = PostgreSQL's fast shutdown: aborts sessions, writes a checkpoint, exits cleanly.
    child.kill("SIGINT");
    const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 30_000).unref());
    if ((await Promise.race([exited, timeout])) === "timeout") stopProcessSync(child.pid, "SIGQUIT");
  }

  async restart(): Promise<void> {
    await this.shutdown();
    await this.launch();
  }

  async whileStopped<T>(fn: () => Promise<T> | T): Promise<T> {
    await this.shutdown();
    try {
      return await fn();
    } finally {
      await this.launch();
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.shutdown();
    fs.rmSync(this.rootDirectory, { recursive: true, force: true });
    if (this.recordId) unregister(this.recordId);
    this.recordId = undefined;
  }

  standbyServer(rootDirectory: string, name: string): StandbyServer {
    return new EmbeddedStandby(this, rootDirectory, name, this.password);
  }

  standbySettings(): ServerSettings {
    const settings: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(this.spec.settings ?? {})) if (!PRIMARY_ONLY.has(k)) settings[k] = v;
    settings.hot_standby = "on";
    return settings;
  }
}

const PRIMARY_ONLY = new Set(["synchronous_standby_names", "synchronous_commit"]);

/** A standby runs the primary's data (and password) in its own directory; making standbys is standby.ts. */
class EmbeddedStandby extends EmbeddedPostgresServer implements StandbyServer {
  constructor(
    primary: EmbeddedPostgresServer,
    rootDirectory: string,
    readonly standbyName: string,
    private readonly primaryPassword: string,
  ) {
    super(
      primary.binaries,
      primary.osUser,
      rootDirectory,
      { engine: "postgresql", name: standbyName, settings: primary.standbySettings() },
      {},
    );
  }

  override get connection(): ConnectionInfo {
    return { ...super.connection, password: this.primaryPassword };
  }
}
