/**
 * A batch of one prepared statement sent as pgx's SendBatch does (Parse, Bind + Execute per row, one
 * Sync: one round trip, one transaction), as a node-postgres "submittable": its pipeline mode syncs and
 * allocates per row, making the client the bottleneck (bench/write-path).
 */
import type { Client } from "pg";
import { serialize } from "pg-protocol";

/** The part of node-postgres's Connection a submittable writes to. */
interface Connection {
  readonly stream: { write(buffer: Buffer): boolean };
  readonly parsedStatements: Record<string, string>;
}

/** Bind+Execute pairs per socket write: a few kB, well under a TCP window. */
const CHUNK_MESSAGES = 128;

class BatchSubmittable {
  /** Read by node-postgres to cache the parsed statement per connection. */
  readonly name: string;
  readonly text: string;
  completed = 0;
  private settled = false;

  constructor(
    name: string,
    text: string,
    private readonly rows: Iterable<readonly (string | null)[]>,
    private readonly resolve: (completed: number) => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.name = name;
    this.text = text;
  }

  submit(connection: Connection): void {
    // In chunks, so the server starts executing while the rest is encoded (most of the client's cost on 2 cores).
    let parts: Buffer[] = [];
    if (connection.parsedStatements[this.name] === undefined)
      parts.push(serialize.parse({ name: this.name, text: this.text }));
    const execute = serialize.execute({});
    for (const values of this.rows) {
      parts.push(serialize.bind({ statement: this.name, values: values as (string | null)[] }), execute);
      if (parts.length >= CHUNK_MESSAGES) {
        connection.stream.write(Buffer.concat(parts));
        parts = [];
      }
    }
    parts.push(serialize.sync());
    connection.stream.write(Buffer.concat(parts));
  }

  handleCommandComplete(): void {
    this.completed++;
  }

  handleReadyForQuery(): void {
    this.settle();
  }

  handleError(error: Error): void {
    // node-postgres forgets the active query on an error, so ReadyForQuery never reaches us.
    this.settle(error);
  }

  private settle(error?: Error): void {
    if (this.settled) return;
    this.settled = true;
    if (error) this.reject(error);
    else this.resolve(this.completed);
  }

  // Never produced by INSERT/UPDATE batches; node-postgres may call them.
  handleParseComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}

/** Executes `text` once per row; resolves with the statements completed. A failing row aborts the whole batch. */
export function sendBatch(
  client: Client,
  name: string,
  text: string,
  rows: Iterable<readonly (string | null)[]>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const submittable = new BatchSubmittable(name, text, rows, resolve, reject);
    (client as unknown as { query(s: object): void }).query(submittable);
  });
}
