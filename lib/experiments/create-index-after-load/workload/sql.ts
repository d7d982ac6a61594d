/**
 * The seed's table, index and server-side row generator, as SQL. The two methods run exactly these
 * statements; only their order differs.
 */

export const TABLE = "foo";
export const INDEX = "foo_code_idx";

export const KEY_ORDERS = ["random", "sorted"] as const;
export type KeyOrder = (typeof KEY_ORDERS)[number];

/** Distinct codes the seed's expression yields: round(random() × 10000) → 0..10000. */
export const CODE_VALUES = 10_001;

/** Codes a load of `codes` distinct values writes: 'C' and 5 digits, so at most 100,000. */
function checkCodes(codes: number): number {
  if (!Number.isSafeInteger(codes) || codes < 1 || codes > 100_000)
    throw new Error(`codes must be an integer from 1 to 100,000, got ${codes}`);
  return codes;
}

/**
 * The seed's table. Autovacuum is off for it: a vacuum or analyze that the finished load triggers
 * would otherwise land, at random, inside the next timed phase (and block CREATE INDEX's lock).
 */
export const CREATE_TABLE = `CREATE TABLE ${TABLE} (id integer NOT NULL, code varchar(6) NOT NULL) WITH (autovacuum_enabled = off)`;

export const CREATE_INDEX = `CREATE INDEX ${INDEX} ON ${TABLE} (code)`;

export const DROP_TABLE = `DROP TABLE IF EXISTS ${TABLE}`;

function checkRows(rows: number): number {
  if (!Number.isSafeInteger(rows) || rows <= 0) throw new Error(`rows must be a positive integer, got ${rows}`);
  return rows;
}

/**
 * The seed's INSERT … SELECT over generate_series ("random", 10,001 codes: the seed's own
 * expression). "sorted" writes the same codes, each about rows/codes times, in ascending order,
 * computed from i so that no sort is timed with the load (an ORDER BY would charge a sort to the
 * indexed load). Fewer codes put more rows on each (claim 4's rows per code).
 */
export function loadSql(rows: number, order: KeyOrder, codes: number = CODE_VALUES): string {
  const n = checkRows(rows);
  const k = checkCodes(codes);
  const code =
    order === "random"
      ? `'C' || lpad(CAST((random() * ${k - 1})::integer AS text), 5, '0')`
      : `'C' || lpad(CAST(((i - 1)::bigint * ${k} / ${n}) AS text), 5, '0')`;
  return `INSERT INTO ${TABLE} SELECT i AS id, ${code} AS code FROM generate_series(1, ${n}) AS s(i)`;
}

/** Session settings per build: both are settable by an ordinary session, no reload needed. */
export function buildSettingsSql(maintenanceWorkMemMB: number, parallelWorkers: number): string {
  if (!Number.isInteger(maintenanceWorkMemMB) || maintenanceWorkMemMB < 1)
    throw new Error(`bad maintenance_work_mem ${maintenanceWorkMemMB}`);
  if (!Number.isInteger(parallelWorkers) || parallelWorkers < 0)
    throw new Error(`bad max_parallel_maintenance_workers ${parallelWorkers}`);
  return `SET maintenance_work_mem = '${maintenanceWorkMemMB}MB'; SET max_parallel_maintenance_workers = ${parallelWorkers}`;
}

/** The server settings the report states, read back from the server itself. */
export const REPORTED_SETTINGS = [
  "server_version",
  "shared_buffers",
  "maintenance_work_mem",
  "max_parallel_maintenance_workers",
  "max_parallel_workers",
  "max_worker_processes",
  "work_mem",
  "max_wal_size",
  "min_wal_size",
  "checkpoint_timeout",
  "checkpoint_completion_target",
  "wal_level",
  "wal_buffers",
  "wal_compression",
  "full_page_writes",
  "synchronous_commit",
  "fsync",
  "data_checksums",
  "wal_log_hints",
  "track_io_timing",
  "track_wal_io_timing",
  "autovacuum",
] as const;
