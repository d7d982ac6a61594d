/** Readiness is a real query, not a sleep; `waitUntilReady` is the one retry loop every target uses. */
import { Client } from "pg";
import type { ConnectionInfo } from "./types";
import { ignored } from "../runtime/debug";
import { handleErrors } from "../runtime/error-events";
import { postgresClientConfig } from "./postgres-client";

export interface ReadinessProbe {
  /** For error messages: "PostgreSQL at 127.0.0.1:5432". */
  describe(): string;
  /** One attempt: resolves with the server's version. */
  check(): Promise<string>;
}

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly intervalMs: number;
  /** Throw to give up early (e.g. the server process exited). */
  readonly abortIf?: () => void;
}

/** Asks the probe until it answers or time is up; the error names the last failure. */
export async function waitUntilReady(probe: ReadinessProbe, options: WaitOptions): Promise<string> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    options.abortIf?.();
    try {
      return await probe.check();
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
  }
  throw new Error(`${probe.describe()} did not become ready in time: ${String(lastError)}`);
}

export function postgresProbe(connection: ConnectionInfo): ReadinessProbe {
  return {
    describe: () => `PostgreSQL at ${connection.host}:${connection.port}`,
    async check() {
      const client = handleErrors(
        new Client(postgresClientConfig(connection, { connectionTimeoutMillis: 2000 })),
        "readiness probe",
      );
      try {
        await client.connect();
        const result = await client.query<{ server_version: string }>("SHOW server_version");
        return result.rows[0].server_version;
      } finally {
        await client.end().catch(ignored("readiness: end the PostgreSQL probe client"));
      }
    },
  };
}

export interface MongoProbeOptions {
  /** Per attempt (default 2000 ms). */
  readonly attemptTimeoutMs?: number;
  /**
   * Refuse a mongod that runs forked or without --auth: the official image's entrypoint first runs
   * such an init-time server, then the final one. Needs an authenticated URI.
   */
  readonly refuseInitTimeServer?: boolean;
}

interface CmdLineOpts {
  readonly parsed?: {
    readonly security?: { readonly authorization?: string };
    readonly processManagement?: { readonly fork?: boolean };
  };
}

export function mongoProbe(uri: string, address: string, options: MongoProbeOptions = {}): ReadinessProbe {
  const timeoutMs = options.attemptTimeoutMs ?? 2000;
  return {
    describe: () => `MongoDB at ${address}`,
    async check() {
      // Loaded on first use: a PostgreSQL-only run never loads the MongoDB driver.
      const { MongoClient } = await import("mongodb");
      const client = new MongoClient(uri, {
        directConnection: true,
        serverSelectionTimeoutMS: timeoutMs,
        connectTimeoutMS: timeoutMs,
      });
      handleErrors(client, "readiness probe");
      try {
        await client.connect();
        const admin = client.db("admin");
        await admin.command({ ping: 1 });
        if (options.refuseInitTimeServer) {
          const opts = (await admin.command({ getCmdLineOpts: 1 })) as CmdLineOpts;
          if (opts.parsed?.processManagement?.fork || opts.parsed?.security?.authorization !== "enabled") {
            throw new Error("the image's init-time mongod is still running");
          }
        }
        const info = (await admin.command({ buildInfo: 1 })) as { version?: string };
        return String(info.version);
      } finally {
        await client.close().catch(ignored("readiness: close the MongoDB probe client"));
      }
    },
  };
}
