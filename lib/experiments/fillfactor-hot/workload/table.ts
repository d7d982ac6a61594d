/** 07's table: its load, its quiet start, the pass's statements and the counters around them. */
import type { Client } from "pg";
import { WalWindows, type WalRecordKey } from "../../../engines/postgres/wal-records";
import type { ConnectionInfo } from "../../../targets/types";
import { endClient } from "../../../engines/postgres/connect";
import {
  connectAll,
  ONE_TABLE_COUNTER_SQL,
  oneTableCountersSql,
  readTableCounters,
  tryExtension,
} from "../../../engines/postgres/one-table-counters";
import { waitForAutovacuumIdle } from "../../../engines/postgres/autovacuum";
import { keyGuard, type Counters } from "../../../stats/counters";
import type { UpdatedColumn } from "../params";
import { BLOCK_BYTES } from "./page-model";

/** Deltas over the timed pass, and the heap's bytes (pg_relation_size). */
const COUNTER_SQL = { ...ONE_TABLE_COUNTER_SQL, "bytes.heap": ["pg_relation_size($1::regclass)::text", ""] } as const;
export type PassCounter = keyof typeof COUNTER_SQL;
const PASS_COUNTERS = Object.keys(COUNTER_SQL) as PassCounter[];
/** `room.ratio`: the share of the loaded page's rows whose new version the page has room for. */
export type RoomLevel = "room.rows_per_page" | "room.free_bytes_per_page" | "room.version_bytes" | "room.ratio";

/** Not `size.*`, which counterDelta keeps as a level: over the pass these are the bytes it added. */
export type IndexSizeKey = `bytes.index.${string}`;

export type FillfactorHotCounterKey = PassCounter | RoomLevel | IndexSizeKey | WalRecordKey;

export const isPassCounterKey = keyGuard<PassCounter | IndexSizeKey>(PASS_COUNTERS, [{ prefix: "bytes.index." }]);

export const TABLE = "hot_rows";
/** k: the column an indexed UPDATE changes. */
export const INDEXES = [`${TABLE}_pkey`, `${TABLE}_k_idx`] as const;

const UPDATE_TEXT: Readonly<Record<UpdatedColumn, string>> = {
  counter: `UPDATE ${TABLE} SET counter = counter + 1 WHERE id BETWEEN $1 AND $2`,
  k: `UPDATE ${TABLE} SET k = k + 1 WHERE id BETWEEN $1 AND $2`,
};

export class HotTable {
  private constructor(
    private readonly setup: Client,
    private readonly writer: Client,
    /** A session of its own, so it can run while `setup` counts a pass's WAL. */
    private readonly loader: Client,
    private readonly pgstattuple: boolean,
    walinspect: boolean,
  ) {
    this.wal = new WalWindows(setup, walinspect);
  }

  private loaded: string | undefined;
  private readonly wal: WalWindows;

  static async open(connection: ConnectionInfo): Promise<HotTable> {
    const [setup, writer, loader] = await connectAll(connection, 3);
    const pgstattuple = await tryExtension(setup, "pgstattuple");
    const walinspect = await tryExtension(setup, "pg_walinspect");
    return new HotTable(setup, writer, loader, pgstattuple, walinspect);
  }

  /** Id order: a range is a run of pages; B-trees after the load: alike at every fillfactor; no autovacuum. */
  async recreate(fillfactor: number, rows: number, padBytes: number): Promise<void> {
    this.loaded = undefined;
    for (const [name, n, lo, hi] of [
      ["fillfactor", fillfactor, 10, 100],
      ["rows", rows, 1, Number.MAX_SAFE_INTEGER],
      ["padBytes", padBytes, 1, 1000],
    ] as const)
      if (!Number.isInteger(n) || n < lo || n > hi) throw new Error(`${name} must be an integer from ${lo} to ${hi}`);
    await this.loader.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await this.loader.query(
      `CREATE TABLE ${TABLE} (id bigint NOT NULL, k bigint NOT NULL, counter bigint NOT NULL, pad text NOT NULL) ` +
        `WITH (fillfactor = ${fillfactor}, autovacuum_enabled = false)`,
    );
    // k scattered ((id · 7919) mod rows): an indexed UPDATE inserts all over its B-tree, as a real key would.
    await this.loader.query(
      `INSERT INTO ${TABLE} SELECT g, (g * 7919) % $1, 0, repeat('x', $2) FROM generate_series(1, $1::bigint) g`,
      [rows, padBytes],
    );
    await this.loader.query(`ALTER TABLE ${TABLE} ADD CONSTRAINT ${INDEXES[0]} PRIMARY KEY (id)`);
    await this.loader.query(`CREATE INDEX ${INDEXES[1]} ON ${TABLE} (k)`);
    this.loaded = shapeOf(fillfactor, rows, padBytes);
  }

  /** Whether the table is as the last recreate left it, of this shape; a second take finds nothing. */
  takeLoaded(fillfactor: number, rows: number, padBytes: number): boolean {
    const loaded = this.loaded;
    this.loaded = undefined;
    return loaded === shapeOf(fillfactor, rows, padBytes);
  }

  /** The same state before every pass; returns the seconds of the VACUUM and of the rest. */
  async quiesce(): Promise<{ vacuumSeconds: number; checkpointSeconds: number }> {
    this.loaded = undefined;
    const t0 = process.hrtime.bigint();
    await this.setup.query(`VACUUM (ANALYZE) ${TABLE}`);
    const t1 = process.hrtime.bigint();
    await this.setup.query("CHECKPOINT");
    await waitForAutovacuumIdle(this.setup);
    // Last: the hold reserves WAL from here, so the checkpoint above frees what came before.
    await this.wal.open();
    const t2 = process.hrtime.bigint();
    return { vacuumSeconds: Number(t1 - t0) / 1e9, checkpointSeconds: Number(t2 - t1) / 1e9 };
  }

  /** pgstattuple where available, else pg_column_size and the page count. */
  async room(): Promise<Counters<RoomLevel>> {
    const { rows } = await this.setup.query<{ pages: number; tuples: number; tuple_bytes: number; free: number }>(
      this.pgstattuple
        ? `SELECT table_len::float8 / ${BLOCK_BYTES} AS pages, tuple_count::float8 AS tuples,
                  tuple_len::float8 AS tuple_bytes, free_space::float8 AS free FROM pgstattuple('${TABLE}')`
        : `SELECT pg_relation_size('${TABLE}')::float8 / ${BLOCK_BYTES} AS pages, count(*)::float8 AS tuples,
                  sum(pg_column_size(t.*))::float8 AS tuple_bytes, NULL::float8 AS free FROM ${TABLE} t`,
    );
    const r = rows[0];
    if (!r || !(r.pages > 0) || !(r.tuples > 0)) return {};
    const rowsPerPage = r.tuples / r.pages;
    const versionBytes = Math.ceil(r.tuple_bytes / r.tuples / 8) * 8 + 4;
    const freeBytesPerPage = r.free === null ? BLOCK_BYTES - 24 - rowsPerPage * versionBytes : r.free / r.pages;
    return {
      "room.rows_per_page": rowsPerPage,
      "room.free_bytes_per_page": freeBytesPerPage,
      "room.version_bytes": versionBytes,
      "room.ratio": freeBytesPerPage / (rowsPerPage * versionBytes),
    };
  }

  async updateRange(column: UpdatedColumn, from: number, to: number): Promise<number> {
    this.loaded = undefined;
    const result = await this.writer.query({ name: `hot_${column}`, text: UPDATE_TEXT[column], values: [from, to] });
    return result.rowCount ?? 0;
  }

  counters(): Promise<Counters<PassCounter | IndexSizeKey>> {
    const o = { reader: this.setup, writer: this.writer, sql: COUNTERS_SQL, table: TABLE };
    return readTableCounters(o, isPassCounterKey, "07 PostgreSQL counters");
  }

  walRecords(from: number | undefined, to: number | undefined): Promise<Counters<WalRecordKey> | undefined> {
    return this.wal.records(from, to, "07 WAL records");
  }

  async close(): Promise<void> {
    this.loaded = undefined;
    await Promise.allSettled([endClient(this.writer), endClient(this.loader), endClient(this.setup)]);
  }
}

const COUNTERS_SQL = oneTableCountersSql(COUNTER_SQL, "bytes.index.");

const shapeOf = (fillfactor: number, rows: number, padBytes: number) => `${fillfactor}/${rows}/${padBytes}`;
