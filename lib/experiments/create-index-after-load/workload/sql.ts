/** The seed's table, index and row generator: both methods run these statements, in another order. */
export const TABLE = "foo";
export const INDEX = "foo_code_idx";

export const KEY_ORDERS = ["random", "sorted"] as const;
export type KeyOrder = (typeof KEY_ORDERS)[number];

/** Distinct codes the seed's expression yields: round(random() × 10000) → 0..10000. */
export const CODE_VALUES = 10_001;

/** Autovacuum off: a vacuum the load triggers would land in the next timed phase (and block CREATE INDEX). */
export const CREATE_TABLE = `CREATE TABLE ${TABLE} (id integer NOT NULL, code varchar(6) NOT NULL) WITH (autovacuum_enabled = off)`;
export const CREATE_INDEX = `CREATE INDEX ${INDEX} ON ${TABLE} (code)`;
export const DROP_TABLE = `DROP TABLE IF EXISTS ${TABLE}`;

/** The seed's INSERT … SELECT; "sorted" writes the same codes ascending, computed from i so no sort is timed. */
export function loadSql(rows: number, order: KeyOrder, codes: number = CODE_VALUES): string {
  if (!Number.isSafeInteger(rows) || rows <= 0) throw new Error(`rows must be a positive integer, got ${rows}`);
  if (!Number.isSafeInteger(codes) || codes < 1 || codes > 100_000)
    throw new Error(`codes must be an integer from 1 to 100,000, got ${codes}`);
  const code =
    order === "random"
      ? `'C' || lpad(CAST((random() * ${codes - 1})::integer AS text), 5, '0')`
      : `'C' || lpad(CAST(((i - 1)::bigint * ${codes} / ${rows}) AS text), 5, '0')`;
  return `INSERT INTO ${TABLE} SELECT i AS id, ${code} AS code FROM generate_series(1, ${rows}) AS s(i)`;
}

export function buildSettingsSql(maintenanceWorkMemMB: number, parallelWorkers: number): string {
  const ok = Number.isInteger(maintenanceWorkMemMB) && maintenanceWorkMemMB >= 1 && Number.isInteger(parallelWorkers);
  if (!ok || parallelWorkers < 0)
    throw new Error(
      `bad maintenance_work_mem ${maintenanceWorkMemMB} or max_parallel_maintenance_workers ${parallelWorkers}`,
    );
  return `SET maintenance_work_mem = '${maintenanceWorkMemMB}MB'; SET max_parallel_maintenance_workers = ${parallelWorkers}`;
}
