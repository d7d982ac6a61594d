/**
 * A batch of executions of one prepared statement sent as pgx's SendBatch sends it: Parse (once
 * per connection), then Bind + Execute for every row, then a single Sync — one round trip, one
 * implicit transaction, no per-row reply awaited.
 *
 * Written here because node-postgres has no batch API: its pipeline mode sends a Sync after every
 * statement (one transaction each unless wrapped in BEGIN/COMMIT) and allocates a Query, a Result
 * and a Promise per row, which made the client, not the server, the bottleneck (bench/write-path).
 * It plugs into node-postgres as a documented "submittable" (the interface pg-cursor and
 * pg-query-stream use) and writes the wire messages with node-postgres's own serializer.
 */
import type { Client } from "pg";
import { serialize } from "pg-protocol";

/** The part of node-postgres's Connection a submittable writes to. */
interface Connection {
  readonly stream: { write(buffer: Buffer): boolean };
  readonly parsedStatements: Record<string, string>;
}

/** Bind+Execute pairs per socket write: 64 rows, a few kB, well under a TCP window. */
const CHUNK_MESSAGES = 128;

class BatchSubmittable {
  /** Read by node-postgres to cache the parsed statement per connection (see _handleParseComplete). */
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
    // Written in chunks so the server starts executing while the rest of the batch is encoded:
    // on a 2-core machine that overlap is most of the client's cost.
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

  // Messages a batch of INSERT/UPDATE never produces; present because node-postgres may call them.
  handleParseComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}

/**
 * Executes `text` (a statement with $1…$n) once per row of text values; resolves with the number
 * of statements that completed. A failing row aborts the whole batch (one implicit transaction).
 */
export function sendBatch(
  client: Client,
  name: string,
  text: string,
  rows: Iterable<readonly (string | null)[]>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const submittable = new BatchSubmittable(name, text, rows, resolve, reject);
    // Typed as a Submittable by @types/pg; node-postgres calls submit() when the connection is free.
    (client as unknown as { query(s: object): void }).query(submittable);
  });
}
