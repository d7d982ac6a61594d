/** node-postgres connections as every experiment opens them. */
import { Client } from "pg";
import { postgresClientConfig } from "../../targets/postgres-client";
import type { ConnectionInfo } from "../../targets/types";
import { ignored } from "../../runtime/debug";
import { handleErrors } from "../../runtime/error-events";
import { withTimeout } from "../../runtime/timeout";

/** How long a client's goodbye may take before its socket is dropped: a living server answers within a round trip. */
export const END_TIMEOUT_MS = 2000;

export interface ConnectOptions {
  /** Another database on the same server. */
  readonly database?: string;
  /** Shown in pg_stat_activity, so the lab's sessions are told from the workload's. */
  readonly applicationName?: string;
}

/**
 * A client whose connection-level errors do not crash the process (an unhandled 'error' event kills Node); the next
 * query fails instead.
 */
export async function connect(connection: ConnectionInfo, options: ConnectOptions = {}): Promise<Client> {
  const client = new Client(
    postgresClientConfig(connection, { database: options.database, applicationName: options.applicationName }),
  );
  handleErrors(client, `postgres client${options.applicationName ? ` ${options.applicationName}` : ""}`);
  await client.connect();
  return client;
}

/**
 * Ends `client`, dropping its socket when the server does not close its side within `timeoutMs`: a
 * vanished host never closes it, and the kernel retransmits a FIN for ~15 min (tcp_retries2).
 */
export async function endClient(client: Client, timeoutMs = END_TIMEOUT_MS): Promise<void> {
  try {
    await withTimeout(client.end(), timeoutMs, `no goodbye from the server within ${timeoutMs} ms`);
  } catch (error) {
    ignored("postgres: end a client")(error);
    // Not in pg's typings; pg itself destroys this stream when a query hangs (Client.end, pg 8).
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}

/** Runs `fn` with a fresh connection and always closes it. */
export async function withClient<T>(
  connection: ConnectionInfo,
  fn: (client: Client) => Promise<T>,
  options: ConnectOptions = {},
): Promise<T> {
  const client = await connect(connection, options);
  try {
    return await fn(client);
  } finally {
    await endClient(client);
  }
}

/**
 * Runs `fn` so that aborting `signal` cancels the statement running on the server (pg_cancel_backend
 * from a second connection): the notebook's Stop ends a long INSERT … SELECT or CREATE INDEX at once
 * (docs/fault-matrix.md).
 */
export async function cancellable<T>(
  connection: ConnectionInfo,
  client: Client,
  signal: AbortSignal | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  if (!signal) return fn();
  signal.throwIfAborted();
  const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  const pid = rows[0].pid;
  const onAbort = () => {
    void withClient(connection, (admin) => admin.query("SELECT pg_cancel_backend($1)", [pid])).catch(
      // The Stop still ends the run between statements; a failed cancel only makes it wait for this one.
      ignored("postgres: cancel the running statement on interrupt"),
    );
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await fn();
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
