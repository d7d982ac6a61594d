import { Client } from "pg";
import { postgresClientConfig } from "../../targets/postgres-client";
import type { ConnectionInfo } from "../../targets/types";
import { ignored } from "../../runtime/debug";
import { handleErrors } from "../../runtime/error-events";
import { withTimeout } from "../../runtime/timeout";

/** A client's goodbye before its socket is dropped: a living server answers within a round trip. */
export const END_TIMEOUT_MS = 2000;

export interface ConnectOptions {
  readonly database?: string;
  /** Shown in pg_stat_activity, telling the lab's sessions from the workload's. */
  readonly applicationName?: string;
}

/** A client whose connection-level errors do not crash the process; the next query fails instead. */
export async function connect(connection: ConnectionInfo, options: ConnectOptions = {}): Promise<Client> {
  const client = new Client(
    postgresClientConfig(connection, { database: options.database, applicationName: options.applicationName }),
  );
  handleErrors(client, `postgres client${options.applicationName ? ` ${options.applicationName}` : ""}`);
  await client.connect();
  return client;
}

/**
 * Ends `client`, dropping its socket if the server does not close its side in `timeoutMs` (a vanished host never does).
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

/** Runs `fn` so that aborting `signal` cancels the running statement (pg_cancel_backend), so Stop acts at once. */
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
      // Stop still ends the run between statements; a failed cancel only waits for this one.
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
