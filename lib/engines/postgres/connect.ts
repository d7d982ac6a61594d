/** node-postgres connections as every experiment opens them. */
import { Client } from "pg";
import type { ConnectionInfo } from "../../targets/types";
import { ignored } from "../../runtime/debug";

export interface ConnectOptions {
  /** Another database on the same server. */
  readonly database?: string;
  /** Shown in pg_stat_activity, so the lab's own sessions can be told from the workload's. */
  readonly applicationName?: string;
}

/**
 * A connected client whose connection-level errors (the server going away while the client is
 * idle) do not crash the process: node-postgres emits them as 'error' events, and an unhandled
 * one kills Node. The next query on the client fails with the error instead.
 */
export async function connect(connection: ConnectionInfo, options: ConnectOptions = {}): Promise<Client> {
  const client = new Client({
    ...connection,
    database: options.database ?? connection.database,
    application_name: options.applicationName,
  });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

/** Runs `fn` with a fresh connection and always closes it. */
export async function withClient<T>(connection: ConnectionInfo, fn: (client: Client) => Promise<T>, options: ConnectOptions = {}): Promise<T> {
  const client = await connect(connection, options);
  try {
    return await fn(client);
  } finally {
    await client.end().catch(ignored("postgres: end the withClient client"));
  }
}
