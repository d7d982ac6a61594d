/**
 * A node-postgres client in pipeline mode, and a batch of statements sent in one round trip inside
 * one transaction: what pgx's SendBatch did for the seed (one implicit transaction per batch).
 */
import { Client, type QueryConfig } from "pg";
import type { ConnectionInfo } from "../../targets/types";

export async function connectPipelined(connection: ConnectionInfo): Promise<Client> {
  return connect(connection, { pipeline: true });
}

/**
 * A connected client whose connection-level errors (the server going away while the client is
 * idle) do not crash the process: node-postgres emits them as 'error' events, and an unhandled
 * one kills Node. The next query on the client fails with the error instead.
 */
export async function connect(connection: ConnectionInfo, options: { readonly pipeline?: boolean } = {}): Promise<Client> {
  const client = new Client({ ...connection, ...options } as ConstructorParameters<typeof Client>[0]);
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

interface CorkableStream {
  cork?: () => void;
  uncork?: () => void;
}

/**
 * Sends BEGIN, the statements and COMMIT without waiting in between, corked so that they leave in
 * as few TCP writes as the socket allows, and resolves when the last reply arrived.
 */
export async function sendBatch(client: Client, statements: Iterable<QueryConfig>): Promise<void> {
  // `connection.stream` is node-postgres's socket; corking it is what Query.submit does per query.
  const stream = (client as unknown as { connection: { stream: CorkableStream } }).connection.stream;
  stream.cork?.();
  const replies: Promise<unknown>[] = [client.query("BEGIN")];
  try {
    for (const statement of statements) replies.push(client.query(statement));
    replies.push(client.query("COMMIT"));
  } finally {
    stream.uncork?.();
  }
  const results = await Promise.allSettled(replies);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}
