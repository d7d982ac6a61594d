/**
 * Readiness is a real query, not a sleep: a server is ready when it answers one.
 */
import { Client } from "pg";
import type { ConnectionInfo } from "./types";
import { ignored } from "../runtime/debug";

export interface WaitOptions {
  readonly timeoutMs?: number;
  /** Called between attempts; throw from it to give up early (e.g. the server process exited). */
  readonly check?: () => void;
}

/** Waits until PostgreSQL accepts a connection and answers `SELECT 1`; returns its version string. */
export async function waitForPostgres(connection: ConnectionInfo, options: WaitOptions = {}): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    options.check?.();
    const client = new Client({ ...connection, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      const result = await client.query<{ server_version: string }>("SHOW server_version");
      return result.rows[0].server_version;
    } catch (error) {
      lastError = error;
    } finally {
      await client.end().catch(ignored("readiness: end the probe client"));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `PostgreSQL at ${connection.host}:${connection.port} did not accept connections in time: ${String(lastError)}`,
  );
}
