/**
 * The REINDEX "from another terminal": its own session, one statement per index, each timed on
 * the wall clock so it can be laid over pgbench's per-second series.
 */
import { Client } from "pg";
import type { ConnectionInfo } from "../../../targets/types";
import { ignored } from "../../../runtime/debug";
import { handleErrors } from "../../../runtime/error-events";
import { postgresClientConfig } from "../../../targets/postgres-client";

export interface ReindexStatement {
  readonly index: string;
  readonly sql: string;
  readonly startMs: number;
  readonly endMs: number;
}

export interface ReindexTiming {
  /** The REINDEX session's backend pid (to tell its locks from pgbench's). */
  readonly pid: number;
  readonly concurrently: boolean;
  readonly statements: readonly ReindexStatement[];
  readonly startMs: number;
  readonly endMs: number;
  readonly error?: string;
}

export class ReindexSession {
  private constructor(
    private readonly client: Client,
    readonly pid: number,
  ) {}

  static async open(connection: ConnectionInfo): Promise<ReindexSession> {
    // A lost connection fails the next REINDEX, which run() records as the trial's error.
    const client = handleErrors(
      new Client(postgresClientConfig(connection, { applicationName: "dblab-reindex" })),
      "REINDEX session",
    );
    await client.connect();
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    return new ReindexSession(client, rows[0].pid);
  }

  /** REINDEX INDEX [CONCURRENTLY] each index in turn; an error is recorded, not thrown. */
  async run(indexes: readonly string[], concurrently: boolean): Promise<ReindexTiming> {
    const statements: ReindexStatement[] = [];
    const startMs = Date.now();
    let error: string | undefined;
    for (const index of indexes) {
      const sql = `REINDEX INDEX ${concurrently ? "CONCURRENTLY " : ""}${index}`;
      const began = Date.now();
      try {
        await this.client.query(sql);
      } catch (e) {
        error = `${sql}: ${e instanceof Error ? e.message : String(e)}`;
        break;
      }
      statements.push({ index, sql, startMs: began, endMs: Date.now() });
    }
    return { pid: this.pid, concurrently, statements, startMs, endMs: Date.now(), error };
  }

  async close(): Promise<void> {
    await this.client.end().catch(ignored("reindex: end the REINDEX session's client"));
  }
}
