/**
 * MongoDB from a `mongod` found on PATH (no npm or Debian package ships one): a fresh dbpath,
 * a free port on 127.0.0.1, authentication on with a random root password.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MongoClient } from "mongodb";
import { processStartTicks } from "../../runtime/resource-registry";
import { register, unregister } from "../../runtime/resources";
import { stopProcessSync } from "../../runtime/reaper";
import { installShutdownHooks } from "../../runtime/shutdown";
import { freePort, randomPassword } from "../ports";
import { mongoProbe, waitUntilReady } from "../readiness";
import type { ConnectionInfo, ServerDescription, ServerSpec, StartedServer, Target } from "../types";
import { handleErrors } from "../../runtime/error-events";
import { findMongod } from "./mongod-path";

export class EmbeddedMongoTarget implements Target {
  readonly kind = "embedded" as const;

  async start(spec: ServerSpec): Promise<StartedServer> {
    const mongod = findMongod();
    if (!mongod) {
      throw new Error(
        "No MongoDB server available on the embedded target: no mongod on PATH (or DBLAB_MONGOD). Put one there, " +
          "set DBLAB_MONGODB_URI for an external server, or use target docker with the mongo:8.0.16 image",
      );
    }
    installShutdownHooks();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-mongo-"));
    const server = new EmbeddedMongoServer(mongod, root, spec, await freePort());
    try {
      await server.launch();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }
}

class EmbeddedMongoServer implements StartedServer {
  readonly kind = "embedded" as const;
  readonly engine = "mongodb" as const;
  readonly id: string;
  private child?: ChildProcess;
  private recordId?: string;
  private readonly password = randomPassword();
  private version = "";
  private stopped = false;

  constructor(
    private readonly mongod: string,
    private readonly root: string,
    private readonly spec: ServerSpec,
    private readonly port: number,
  ) {
    this.id = path.basename(root);
  }

  get connection(): ConnectionInfo {
    return { host: "127.0.0.1", port: this.port, user: "root", password: this.password, database: "dblab" };
  }

  get uri(): string {
    return `mongodb://root:${encodeURIComponent(this.password)}@127.0.0.1:${this.port}/?authSource=admin`;
  }

  get description(): ServerDescription {
    return {
      engine: "mongodb",
      kind: "embedded",
      version: this.version,
      source: this.mongod,
      settings: this.spec.settings,
      address: `127.0.0.1:${this.port}`,
    };
  }

  async launch(): Promise<void> {
    const cache = Number(this.spec.settings?.wiredTigerCacheSizeGB ?? 1);
    const log = fs.openSync(path.join(this.root, "mongod.log"), "a");
    this.child = spawn(
      this.mongod,
      [
        "--dbpath",
        this.root,
        "--port",
        String(this.port),
        "--bind_ip",
        "127.0.0.1",
        "--auth",
        "--wiredTigerCacheSizeGB",
        String(cache),
      ],
      { detached: true, stdio: ["ignore", log, log] },
    );
    fs.closeSync(log);
    // A binary that cannot be run fails the start (abortIf below) with its reason.
    let spawnError: string | undefined;
    handleErrors(this.child, "embedded mongod", (error) => (spawnError = error.message));
    this.recordId = register({
      type: "process",
      pid: this.child.pid ?? 0,
      pidStartTicks: this.child.pid ? processStartTicks(this.child.pid) : undefined,
      directory: this.root,
      description: `embedded mongod pid ${this.child.pid} port ${this.port}`,
    });
    const child = this.child;
    const address = `127.0.0.1:${this.port}`;
    this.version = await waitUntilReady(
      // No user exists yet, so the probe connects without one (the init-time check needs auth).
      mongoProbe(`mongodb://${address}/`, address, { attemptTimeoutMs: 1000 }),
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        abortIf: () => {
          if (spawnError !== undefined) throw new Error(`mongod could not run: ${spawnError}`);
          if (child.exitCode !== null || child.signalCode !== null) {
            throw new Error(`mongod exited with ${child.signalCode ?? `code ${child.exitCode}`} while starting`);
          }
        },
      },
    );
    // The localhost exception lets the first connection create the root user.
    const client = handleErrors(
      new MongoClient(`mongodb://${address}/?directConnection=true`, { serverSelectionTimeoutMS: 1000 }),
      "embedded mongod: creating the root user",
    );
    try {
      await client.db("admin").command({ createUser: "root", pwd: this.password, roles: ["root"] });
    } finally {
      await client.close();
    }
  }

  async restart(): Promise<void> {
    throw new Error("Restarting an embedded mongod is not supported");
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.child?.pid && this.child.exitCode === null) stopProcessSync(this.child.pid, "SIGTERM", 15_000);
    fs.rmSync(this.root, { recursive: true, force: true });
    if (this.recordId) unregister(this.recordId);
  }
}
