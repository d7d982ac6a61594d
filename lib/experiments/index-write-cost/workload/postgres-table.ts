/** PostgreSQL side: the seed's table, COPY load, single-column B-trees, batches of single-row writes (a round trip). */
import { probeOnce } from "../../../engines/postgres/speed-probe";
import { WalWindows, type WalRecordKey } from "../../../engines/postgres/wal-records";
import type { SpeedProbe } from "../../../stats/speed";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import type { Client } from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { ConnectionInfo } from "../../../targets/types";
import type { Counters } from "../../../stats/counters";
import {
  isPgIndexWriteCounterKey,
  PG_TABLE_COUNTER_SQL,
  type Dataset,
  type IndexWriteCounterKey,
  type IndexWriteEngine,
  type PgIndexWriteCounterKey,
} from "./engine";
import { byUpdate, FIELDS, type Field, type UpdateOperation } from "./operations";
import { sendBatch } from "../../../engines/postgres/batch";
import { integerCopyText } from "../../../engines/postgres/copy-text";
import { endClient } from "../../../engines/postgres/connect";
import {
  connectAll,
  oneTableCountersSql,
  readTableCounters,
  tryExtension,
} from "../../../engines/postgres/one-table-counters";
import { waitForAutovacuumIdle } from "../../../engines/postgres/autovacuum";

const TABLE = "write_cost_rows";
const COLUMNS = ["id", "counter", ...FIELDS];

const INSERT_TEXT = `INSERT INTO ${TABLE} (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})`;

const UPDATE_TEXT = byUpdate(
  (cols) => `UPDATE ${TABLE} SET ${cols.map((c) => `${c} = ${c} + 1`).join(", ")} WHERE id = $1`,
);

/**
 * Every update trial of a size loads the same rows: their COPY text is made once per data set and kept while it is (a
 * WeakMap: dropped with it; about twice the data set's own memory).
 */
const COPY_TEXT = new WeakMap<Dataset, readonly Buffer[]>();

function copyText(dataset: Dataset): readonly Buffer[] {
  const made = COPY_TEXT.get(dataset) ?? integerCopyText(["row number", 0, ...dataset.fields], dataset.rows);
  COPY_TEXT.set(dataset, made);
  return made;
}

export class PostgresIndexWriteTable implements IndexWriteEngine {
  readonly engine = "postgresql" as const;
  readonly setupBesideCount = true;

  // `setup` counts; `writer` sends the timed batches; `loader` sets tables up beside a WAL count. pg_walinspect and
  // pg_stat_statements where the server has them (a managed server may not).
  private constructor(
    private readonly setup: Client,
    private readonly writer: Client,
    private readonly loader: Client,
    private readonly connection: ConnectionInfo,
    walinspect: boolean,
    private readonly statements: boolean,
  ) {
    this.wal = new WalWindows(setup, walinspect);
  }

  private readonly wal: WalWindows;

  static async open(connection: ConnectionInfo): Promise<PostgresIndexWriteTable> {
    const [setup, writer, loader] = await connectAll(connection, 3);
    const walinspect = await tryExtension(setup, "pg_walinspect");
    const statements = await tryExtension(setup, "pg_stat_statements");
    return new PostgresIndexWriteTable(setup, writer, loader, connection, walinspect, statements);
  }

  speed(key: string): Promise<SpeedProbe | undefined> {
    return probeOnce(this.connection, key);
  }

  async quiesce(): Promise<void> {
    await this.setup.query("CHECKPOINT");
    // An autovacuum of the fresh table would share the CPUs: wait (at most 30 s; an overlap is flagged).
    await waitForAutovacuumIdle(this.setup);
    // Last: the hold reserves WAL from here, so the checkpoint above frees what came before.
    await this.wal.open();
  }

  writtenBetween(
    before: Counters<IndexWriteCounterKey>,
    after: Counters<IndexWriteCounterKey>,
  ): Promise<Counters<WalRecordKey> | undefined> {
    return this.wal.records(before["wal.lsn"], after["wal.lsn"], "01 WAL records");
  }

  async recreate({ fillfactor }: { readonly fillfactor: number }): Promise<void> {
    if (!Number.isInteger(fillfactor) || fillfactor < 10 || fillfactor > 100)
      throw new Error(`fillfactor must be an integer from 10 to 100, got ${fillfactor}`);
    await this.loader.query(`DROP TABLE IF EXISTS ${TABLE}`);
    // The primary key comes with the other indexes (createIndexes): after a load, one sort builds the index the
    // load's ascending inserts would, in less of the time between trials (docs/claims-and-regimes.md, 01).
    await this.loader.query(
      `CREATE TABLE ${TABLE} (id bigint NOT NULL, counter bigint NOT NULL, ` +
        `${FIELDS.map((f) => `${f} bigint NOT NULL`).join(", ")}) WITH (fillfactor = ${fillfactor})`,
    );
  }

  async load(dataset: Dataset): Promise<void> {
    await pipeline(
      Readable.from(copyText(dataset)),
      this.loader.query(copyFrom(`COPY ${TABLE} (${COLUMNS.join(", ")}) FROM STDIN`)),
    );
    await this.loader.query(`ANALYZE ${TABLE}`);
  }

  async createIndexes(fields: readonly Field[]): Promise<void> {
    const unknown = fields.find((field) => !(FIELDS as readonly string[]).includes(field));
    if (unknown) throw new Error(`unknown field ${unknown}`);
    await this.loader.query(`ALTER TABLE ${TABLE} ADD PRIMARY KEY (id)`);
    for (const field of fields) await this.loader.query(`CREATE INDEX ${TABLE}_${field}_idx ON ${TABLE} (${field})`);
  }

  async insertBatch(dataset: Dataset, start: number, end: number): Promise<void> {
    await sendBatch(this.writer, "wc_insert", INSERT_TEXT, insertRows(dataset, start, end));
  }

  async updateBatch(dataset: Dataset, operation: UpdateOperation, start: number, end: number): Promise<void> {
    await sendBatch(this.writer, `wc_${operation}`, UPDATE_TEXT[operation], updateRows(dataset, start, end));
  }

  async counters(): Promise<Counters<PgIndexWriteCounterKey>> {
    const o = { reader: this.setup, writer: this.writer, sql: COUNTERS_SQL, table: TABLE };
    const snapshot = await readTableCounters(o, isPgIndexWriteCounterKey, "01 PostgreSQL counters");
    if (!this.statements) return snapshot;
    // Server time of the timed statements (planning + execution): ratios free of the client path.
    const { rows } = await this.setup.query<{ ms: string | null }>(
      `SELECT sum(total_exec_time + total_plan_time)::text AS ms FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND (query LIKE 'INSERT INTO ${TABLE} %' OR query LIKE 'UPDATE ${TABLE} %')`,
    );
    return { ...snapshot, "server.statement_ms": Number(rows[0]?.ms ?? 0) };
  }

  async close(): Promise<void> {
    await Promise.allSettled([endClient(this.writer), endClient(this.loader), endClient(this.setup)]);
  }
}

function* insertRows(dataset: Dataset, start: number, end: number): Generator<string[]> {
  const [f1, f2, f3, f4, f5] = dataset.fields;
  // Plain code: this runs inside the timed unit.
  for (let i = start; i < end; i++)
    yield [String(i + 1), "0", String(f1[i]), String(f2[i]), String(f3[i]), String(f4[i]), String(f5[i])];
}

function* updateRows(dataset: Dataset, start: number, end: number): Generator<string[]> {
  for (let k = start; k < end; k++) yield [String(dataset.updateOrder[k] + 1)];
}

/** One row per counter: table activity, buffers, WAL, checkpoints, and the size of each relation. */
const COUNTERS_SQL = oneTableCountersSql(PG_TABLE_COUNTER_SQL, "size.index.");
