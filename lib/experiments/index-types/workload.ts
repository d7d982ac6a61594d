/** 08's trial: a fresh table with at most one index, INSERT batches into it empty or UPDATE passes over it loaded. */
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "pg";
import type { TrialRecord } from "../../results/run-store";
import type { ConnectionInfo } from "../../targets/types";
import { connect, endClient } from "../../engines/postgres/connect";
import { tryExtension } from "../../engines/postgres/one-table-counters";
import { okTrial, runTrialsOn, shuffledRounds, type OrderedTrial, type PlanOnOptions } from "../../workloads/trials";
import type { IndexKind, IndexTypesParams, Operation } from "./params";
import { idRanges, timed, timeUnits } from "../../workloads/timed";

export interface IndexTypesCondition {
  readonly kind: IndexKind;
  readonly operation: Operation;
}

export type IndexTypesCounter =
  | "index.bytes"
  | "index.bytes_unsummarized"
  | "pkey.bytes"
  | "heap.bytes"
  | "wal.bytes"
  | "checkpoints"
  | "pending.flushes";

export type IndexTypesTrial = TrialRecord<IndexTypesCondition, IndexTypesCounter> & {
  readonly unitWalBytes?: readonly number[];
  /** GIN's pending-list pages after each batch (pageinspect), for a GIN index with fastupdate. */
  readonly pendingPages?: readonly number[];
  /** BRIN: the untimed brin_summarize_new_values after the stream (the work the stream left to it). */
  readonly summarizeSeconds?: number;
} & Partial<Record<`${SetupPhase | "positions" | "counters"}Seconds`, number>>;

/** The untimed parts of a trial's setup, each summed by name in the run's time account. */
type SetupPhase = "recreate" | "load" | "index" | "vacuum" | "checkpoint";
type SetupSeconds = Partial<Record<`${SetupPhase}Seconds`, number>>;

export type PlannedTrial = OrderedTrial<IndexTypesCondition>;

export const conditionKey = (c: IndexTypesCondition): string => `${c.kind}/${c.operation}`;

export const planTrials = (p: Pick<IndexTypesParams, "kinds" | "operations" | "repeats" | "seed">): PlannedTrial[] =>
  shuffledRounds(
    p.kinds.flatMap((kind) => p.operations.map((operation) => ({ kind, operation }))),
    p.repeats,
    p.seed,
    conditionKey,
  );

/** A batch is inside the partial index's predicate when its number (from 0) is a multiple of matchEvery. */
export const insidePredicate = (batch: number, matchEvery: number): boolean => batch % matchEvery === 0;

const TABLE = "idx_rows";
const INDEX = "idx_rows_ix";
/** Four keys per row from a vocabulary of 1,000: every row adds four GIN entries. */
const TAGS = (g: string) =>
  `ARRAY[(${g} * 31) % 1000, (${g} * 17 + 3) % 1000, (${g} * 7 + 5) % 1000, (${g} * 13 + 11) % 1000]`;
const INDEX_SQL: Readonly<Record<Exclude<IndexKind, "none">, string>> = {
  btree: `CREATE INDEX ${INDEX} ON ${TABLE} USING btree (k)`,
  hash: `CREATE INDEX ${INDEX} ON ${TABLE} USING hash (k)`,
  brin: `CREATE INDEX ${INDEX} ON ${TABLE} USING brin (created)`,
  "gin-fastupdate": `CREATE INDEX ${INDEX} ON ${TABLE} USING gin (tags) WITH (fastupdate = on)`,
  "gin-nofastupdate": `CREATE INDEX ${INDEX} ON ${TABLE} USING gin (tags) WITH (fastupdate = off)`,
  partial: `CREATE INDEX ${INDEX} ON ${TABLE} USING btree (k) WHERE flagged`,
};
// k: the ids scattered, so B-tree and hash entries land all over the index; created: the insertion order (BRIN).
const ROWS_SQL = (flagged: string) =>
  `SELECT g, ((g * 7919) % 1000003)::int, g, ${TAGS("g")}, ${flagged}, repeat('x', 60) FROM generate_series($1::bigint, $2::bigint) g`;
const INSERT_SQL = `INSERT INTO ${TABLE} ${ROWS_SQL("$3::boolean")}`;
/** A row's heap bytes: its header, id, k, created, the 4-key array, flagged, the 60-byte pad and its line pointer. */
export const ROW_BYTES = 150;
/** An int4 key's pending-list tuple with its line pointer, keys per row, gin_pending_list_limit's default. */
export const [KEY_BYTES, KEYS_PER_ROW, PENDING_LIMIT] = [20, 4, 4 * 1024 * 1024];
/** The heap pages of `rows` rows and the pending-list flushes of their INSERT stream, as planned. */
export const plannedSize = (rows: number) => ({
  pages: Math.ceil((rows * ROW_BYTES) / 8192),
  flushes: Math.floor((rows * KEYS_PER_ROW * KEY_BYTES) / PENDING_LIMIT),
});
const UPDATE_SQL =
  `UPDATE ${TABLE} SET k = k + 1, created = created + 1, ` +
  `tags = ARRAY[(tags[1] + 1) % 1000, tags[2], tags[3], tags[4]] WHERE id BETWEEN $1 AND $2`;

export class IndexTable {
  private constructor(
    private readonly client: Client,
    private readonly pageinspect: boolean,
  ) {}

  static async open(connection: ConnectionInfo): Promise<IndexTable> {
    const client = await connect(connection);
    return new IndexTable(client, await tryExtension(client, "pageinspect"));
  }

  /**
   * insert: the empty table with its primary key and index. update: loaded, then its primary key built by one
   * sort (the same leaves, 90 % full, as the ascending inserts would make, for less work), indexed, vacuumed, and
   * analysed on `id`, the only column the UPDATE's plan reads (an index scan of the primary key).
   */
  async prepare(c: IndexTypesCondition, p: IndexTypesParams): Promise<SetupSeconds> {
    const q = async (sql: string, values?: unknown[]) => (await timed(() => this.client.query(sql, values)))[1];
    const load = c.operation === "update";
    const recreateSeconds =
      (await q(`DROP TABLE IF EXISTS ${TABLE}`)) +
      (await q(
        `CREATE TABLE ${TABLE} (id bigint ${load ? "NOT NULL" : "PRIMARY KEY"}, k integer NOT NULL, ` +
          `created bigint NOT NULL, tags integer[] NOT NULL, flagged boolean NOT NULL, pad text NOT NULL) ` +
          `WITH (autovacuum_enabled = false)`,
      ));
    const flagged = `((g - 1) / ${p.batchRows}) % ${p.matchEvery} = 0`;
    const loadSeconds = load
      ? (await q(`INSERT INTO ${TABLE} ${ROWS_SQL(flagged)}`, [1, p.rows])) +
        (await q(`ALTER TABLE ${TABLE} ADD PRIMARY KEY (id)`))
      : 0;
    const indexSeconds = c.kind !== "none" ? await q(INDEX_SQL[c.kind]) : 0;
    const vacuumSeconds = load ? await q(`VACUUM (ANALYZE) ${TABLE} (id)`) : 0;
    const checkpointSeconds = (await timed(() => this.checkpoint()))[1];
    return { recreateSeconds, loadSeconds, indexSeconds, vacuumSeconds, checkpointSeconds };
  }

  /**
   * CHECKPOINT, done once pg_stat_checkpointer counts it: the checkpointer reports its count after it wakes the
   * waiting backend, so a count read at once can miss it, and the trial would count its own CHECKPOINT as one inside
   * its batches (their WAL shows none). Waits at most 2 s.
   */
  private async checkpoint(): Promise<void> {
    const before = await this.checkpoints();
    await this.client.query("CHECKPOINT");
    for (let waited = 0; waited < 2000 && (await this.checkpoints()) <= before; waited += 5) await sleep(5);
  }

  async batch(operation: Operation, from: number, to: number, flagged: boolean): Promise<number> {
    const r =
      operation === "insert"
        ? await this.client.query({ name: "insert_batch", text: INSERT_SQL, values: [from, to, flagged] })
        : await this.client.query({ name: "update_batch", text: UPDATE_SQL, values: [from, to] });
    return r.rowCount ?? 0;
  }

  /**
   * The WAL insert position (bytes since 0/0), and GIN's pending pages when asked and pageinspect is there; read after
   * every batch, so prepared once (named) like the batches.
   */
  async position(pending: boolean): Promise<{ lsn: number; pendingPages?: number }> {
    const withPending = pending && this.pageinspect;
    const { rows } = await this.client.query<{ lsn: number; pending: number | null }>({
      name: withPending ? "position_pending" : "position",
      text:
        `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8 AS lsn, ` +
        (withPending ? `(SELECT n_pending_pages FROM gin_metapage_info(get_raw_page('${INDEX}', 0)))` : "NULL") +
        "::float8 AS pending",
    });
    const r = rows[0];
    return { lsn: r.lsn, ...(r.pending === null ? {} : { pendingPages: r.pending }) };
  }

  async checkpoints(): Promise<number> {
    const { rows } = await this.client.query<{ n: number }>(
      "SELECT (num_timed + num_requested)::float8 AS n FROM pg_stat_checkpointer",
    );
    return rows[0].n;
  }

  async sizes(kind: IndexKind): Promise<{ index: number; pkey: number; heap: number }> {
    const { rows } = await this.client.query<{ index: number; pkey: number; heap: number }>(
      `SELECT ${kind === "none" ? "0" : `pg_relation_size('${INDEX}')`}::float8 AS index,
              pg_relation_size('${TABLE}_pkey')::float8 AS pkey, pg_relation_size('${TABLE}')::float8 AS heap`,
    );
    return rows[0];
  }

  async summarizeBrin(): Promise<void> {
    await this.client.query(`SELECT brin_summarize_new_values('${INDEX}')`);
  }

  close(): Promise<void> {
    return endClient(this.client);
  }
}

export async function runTrial(
  table: IndexTable,
  planned: PlannedTrial,
  p: IndexTypesParams,
  signal?: AbortSignal,
): Promise<IndexTypesTrial> {
  const startedAt = new Date().toISOString();
  const { kind, operation } = planned.condition;
  const setup = await table.prepare(planned.condition, p);
  const pending = kind === "gin-fastupdate" && operation === "insert";
  const [checkpointsBefore, checkpointsSeconds] = await timed(() => table.checkpoints());
  let [{ lsn: last }, positionsSeconds] = await timed(() => table.position(pending));
  const unitWalBytes: number[] = [];
  const pendingPages: number[] = [];
  let written = 0;
  const unitMs = await timeUnits(
    idRanges(p.rows, p.batchRows),
    async ([from, to], batch) => {
      written += await table.batch(operation, from, to, insidePredicate(batch, p.matchEvery));
    },
    {
      signal,
      roundEachToMicrosecond: true,
      after: async () => {
        const [at, positionSeconds] = await timed(() => table.position(pending));
        positionsSeconds += positionSeconds;
        unitWalBytes.push(at.lsn - last);
        last = at.lsn;
        if (at.pendingPages !== undefined) pendingPages.push(at.pendingPages);
      },
    },
  );
  if (written !== p.rows) throw new Error(`the ${operation} batches wrote ${written} rows of ${p.rows}`);
  const t0 = process.hrtime.bigint();
  const checkpoints = (await table.checkpoints()) - checkpointsBefore;
  const sizes = await table.sizes(kind);
  const countersSeconds = checkpointsSeconds + Number(process.hrtime.bigint() - t0) / 1e9;
  const summarizeSeconds =
    kind === "brin" && operation === "insert" ? (await timed(() => table.summarizeBrin()))[1] : undefined;
  const summarized = summarizeSeconds === undefined ? sizes.index : (await table.sizes(kind)).index;
  const flushes = pendingPages.filter((n, i) => n < (i ? pendingPages[i - 1] : 0)).length;
  return {
    ...okTrial(planned, unitMs),
    unitMs,
    unitWalBytes,
    ...(pendingPages.length ? { pendingPages } : {}),
    counters: {
      "index.bytes": summarized,
      ...(summarizeSeconds === undefined ? {} : { "index.bytes_unsummarized": sizes.index }),
      "pkey.bytes": sizes.pkey,
      "heap.bytes": sizes.heap,
      "wal.bytes": unitWalBytes.reduce((a, b) => a + b, 0),
      checkpoints,
      ...(pendingPages.length ? { "pending.flushes": flushes } : {}),
    },
    ...(summarizeSeconds === undefined ? {} : { summarizeSeconds }),
    ...setup,
    positionsSeconds,
    countersSeconds,
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}

export function runPlan(
  o: PlanOnOptions<IndexTable, IndexTypesCondition, PlannedTrial, IndexTypesTrial> & {
    readonly params: IndexTypesParams;
  },
): Promise<IndexTypesTrial[]> {
  return runTrialsOn(o.open, o.plan, (table, planned) => runTrial(table, planned, o.params, o.signal), {
    ...o,
    watch: (planned) => ({
      engine: "postgresql",
      what: `${planned.condition.operation} batches, trial ${planned.key}`,
      group: conditionKey(planned.condition),
    }),
  });
}
