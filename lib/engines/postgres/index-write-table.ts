/**
 * PostgreSQL side of the index-write-cost workload: the seed's table, COPY loading, single-column
 * B-tree indexes, batched single-row INSERT/UPDATE (one round trip, one transaction per batch), and the counters that explain them.
 */
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import type { Client } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { ConnectionInfo } from "../../targets/types";
import type { Dataset } from "../../workloads/index-write-cost/dataset";
import type { CounterSnapshot, IndexWriteEngine } from "../../workloads/index-write-cost/engine";
import { FIELDS, UPDATED_COLUMNS, type Field, type UpdateOperation } from "../../workloads/index-write-cost/operations";
import { sendBatch } from "./batch";
import { connect } from "./connect";

const TABLE = "write_cost_rows";
const COLUMNS = ["id", "counter", ...FIELDS];

const INSERT_TEXT = `INSERT INTO ${TABLE} (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})`;

const UPDATE_TEXT: Readonly<Record<UpdateOperation, string>> = {
  update_nonindexed: updateText("update_nonindexed"),
  update_one_field: updateText("update_one_field"),
  update_five_fields: updateText("update_five_fields"),
};

function updateText(operation: UpdateOperation): string {
  const sets = UPDATED_COLUMNS[operation].map((c) => `${c} = ${c} + 1`).join(", ");
  return `UPDATE ${TABLE} SET ${sets} WHERE id = $1`;
}

/** Rows as COPY text, produced lazily in chunks so 1M rows never sit in memory as one string. */
function copyStream(dataset: Dataset): Readable {
  const chunkRows = 10_000;
  let next = 0;
  return new Readable({
    read() {
      if (next >= dataset.rows) {
        this.push(null);
        return;
      }
      const end = Math.min(dataset.rows, next + chunkRows);
      const lines: string[] = [];
      for (let i = next; i < end; i++) {
        lines.push(`${i + 1}\t0\t${dataset.fields[0][i]}\t${dataset.fields[1][i]}\t${dataset.fields[2][i]}\t${dataset.fields[3][i]}\t${dataset.fields[4][i]}\n`);
      }
      next = end;
      this.push(lines.join(""));
    },
  });
}

export class PostgresIndexWriteTable implements IndexWriteEngine {
  readonly engine = "postgresql" as const;

  private constructor(
    /** Setup, COPY and counters: an ordinary connection. */
    private readonly setup: Client,
    /** The timed statements: batches of one prepared statement, one Sync each. */
    private readonly writer: Client,
  ) {}

  static async open(connection: ConnectionInfo): Promise<PostgresIndexWriteTable> {
    const setup = await connect(connection);
    try {
      return new PostgresIndexWriteTable(setup, await connect(connection));
    } catch (error) {
      await setup.end();
      throw error;
    }
  }

  async recreate({ fillfactor }: { readonly fillfactor: number }): Promise<void> {
    if (!Number.isInteger(fillfactor) || fillfactor < 10 || fillfactor > 100) {
      throw new Error(`fillfactor must be an integer from 10 to 100, got ${fillfactor}`);
    }
    await this.setup.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await this.setup.query(
      `CREATE TABLE ${TABLE} (id bigint PRIMARY KEY, counter bigint NOT NULL, ` +
        `${FIELDS.map((f) => `${f} bigint NOT NULL`).join(", ")}) WITH (fillfactor = ${fillfactor})`,
    );
  }

  async load(dataset: Dataset): Promise<void> {
    await pipeline(copyStream(dataset), this.setup.query(copyFrom(`COPY ${TABLE} (${COLUMNS.join(", ")}) FROM STDIN`)));
    // Statistics for the planner, as any loader would; without it the first updates plan on guesses.
    await this.setup.query(`ANALYZE ${TABLE}`);
  }

  async createIndexes(fields: readonly Field[]): Promise<void> {
    for (const field of fields) {
      if (!(FIELDS as readonly string[]).includes(field)) throw new Error(`unknown field ${field}`);
      await this.setup.query(`CREATE INDEX ${TABLE}_${field}_idx ON ${TABLE} (${field})`);
    }
  }

  async insertBatch(dataset: Dataset, start: number, end: number): Promise<void> {
    await sendBatch(this.writer, "wc_insert", INSERT_TEXT, insertRows(dataset, start, end));
  }

  async updateBatch(dataset: Dataset, operation: UpdateOperation, start: number, end: number): Promise<void> {
    await sendBatch(this.writer, `wc_${operation}`, UPDATE_TEXT[operation], updateRows(dataset, start, end));
  }

  async counters(): Promise<CounterSnapshot> {
    // Backends flush their statistics at most once a second; force the writer's out first.
    await this.writer.query("SELECT pg_stat_force_next_flush()");
    const { rows } = await this.setup.query<Record<string, string>>(COUNTERS_SQL, [TABLE]);
    const snapshot: Record<string, number> = {};
    for (const row of rows) snapshot[row.name] = Number(row.value);
    return snapshot;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.writer.end(), this.setup.end()]);
  }
}

function* insertRows(dataset: Dataset, start: number, end: number): Generator<string[]> {
  const f = dataset.fields;
  for (let i = start; i < end; i++) {
    yield [String(i + 1), "0", String(f[0][i]), String(f[1][i]), String(f[2][i]), String(f[3][i]), String(f[4][i])];
  }
}

function* updateRows(dataset: Dataset, start: number, end: number): Generator<string[]> {
  for (let k = start; k < end; k++) yield [String(dataset.updateOrder[k] + 1)];
}

/** One row per counter: table activity, buffers, WAL, checkpoints, and the size of each relation. */
const COUNTERS_SQL = `
WITH t AS (SELECT * FROM pg_stat_user_tables WHERE relname = $1),
     io AS (SELECT * FROM pg_statio_user_tables WHERE relname = $1)
SELECT 'table.n_tup_ins' AS name, n_tup_ins::text AS value FROM t
UNION ALL SELECT 'table.n_tup_upd', n_tup_upd::text FROM t
UNION ALL SELECT 'table.n_tup_hot_upd', n_tup_hot_upd::text FROM t
UNION ALL SELECT 'table.n_tup_newpage_upd', n_tup_newpage_upd::text FROM t
UNION ALL SELECT 'table.autovacuum_count', (autovacuum_count + autoanalyze_count)::text FROM t
UNION ALL SELECT 'buffers.heap_hit', heap_blks_hit::text FROM io
UNION ALL SELECT 'buffers.heap_read', heap_blks_read::text FROM io
UNION ALL SELECT 'buffers.index_hit', coalesce(idx_blks_hit, 0)::text FROM io
UNION ALL SELECT 'buffers.index_read', coalesce(idx_blks_read, 0)::text FROM io
UNION ALL SELECT 'wal.records', wal_records::text FROM pg_stat_wal
UNION ALL SELECT 'wal.fpi', wal_fpi::text FROM pg_stat_wal
UNION ALL SELECT 'wal.bytes', wal_bytes::text FROM pg_stat_wal
UNION ALL SELECT 'checkpoints', (num_timed + num_requested)::text FROM pg_stat_checkpointer
UNION ALL SELECT 'size.table', pg_relation_size($1::regclass)::text
UNION ALL SELECT 'size.index.' || indexrelname, pg_relation_size(indexrelid)::text
  FROM pg_stat_user_indexes WHERE relname = $1
`;
