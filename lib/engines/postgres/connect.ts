/** node-postgres connections as every experiment opens them. */
import { Client } from "pg";
import type { ConnectionInfo } from "../../targets/types";

/**
 * A connected client whose connection-level errors (the server going away while the client is
 * idle) do not crash the process: node-postgres emits them as 'error' events, and an unhandled
 * one kills Node. The next query on the client fails with the error instead.
 */
export async function connect(connection: ConnectionInfo): Promise<Client> {
  const client = new Client(connection);
  client.on("error", () => undefined);
  await client.connect();
  return client;
}
