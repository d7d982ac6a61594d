/** The seed's cases (yy-at-here/psql_update, sql/*.sql): one round trip per statement, as psql -f sends them. */

export const CASES = [
  "select1",
  "update_autocommit",
  "update_one_transaction",
  "update_each_transaction",
  "prepared_autocommit",
  "prepared_one_transaction",
  "bulk_update",
] as const;
export type CaseId = (typeof CASES)[number];

/** `writes`: the case changes rows (the table is reset before it). */
const info = (label: string, seedFile: string, roundTrips: (n: number) => number, writes = true) =>
  ({ label, seedFile, roundTrips, writes }) as const;

export const CASE_INFO: Readonly<Record<CaseId, ReturnType<typeof info>>> = {
  select1: info("SELECT 1 ×N (round trip)", "roundtrip.sql", (n) => n, false),
  update_autocommit: info("UPDATE ×N, autocommit", "update_10000_without_tx.sql", (n) => n),
  update_one_transaction: info("UPDATE ×N in one transaction", "update_10000_with_tx.sql", (n) => n + 2),
  update_each_transaction: info("BEGIN/UPDATE/COMMIT ×N", "update_10000_each_tx.sql", (n) => 3 * n),
  prepared_autocommit: info("PREPARE + EXECUTE ×N, autocommit", "update_10000_without_tx_prepare.sql", (n) => n + 1),
  prepared_one_transaction: info(
    "PREPARE + EXECUTE ×N in one transaction",
    "update_10000_with_tx_prepare.sql",
    (n) => n + 3,
  ),
  bulk_update: info("one UPDATE … WHERE id IN (1..N)", "bulk_update.sql", () => 1),
};

const UPDATE = (id: number) => `UPDATE benchmark_accounts SET status = 'active' WHERE id = ${id}`;
const EXECUTE = (id: number) => `EXECUTE update_active(${id})`;
const PREPARE = "PREPARE update_active (bigint) AS UPDATE benchmark_accounts SET status = 'active' WHERE id = $1";
/** Each case as the seed's SQL file sends it: what comes first, the statements per id, what comes last. */
const SHAPES: Readonly<Record<Exclude<CaseId, "bulk_update">, [string[], (id: number) => string[], string[]]>> = {
  select1: [[], () => ["SELECT 1"], []],
  update_autocommit: [[], (id) => [UPDATE(id)], []],
  update_one_transaction: [["BEGIN"], (id) => [UPDATE(id)], ["COMMIT"]],
  update_each_transaction: [[], (id) => ["BEGIN", UPDATE(id), "COMMIT"], []],
  prepared_autocommit: [[PREPARE], (id) => [EXECUTE(id)], []],
  prepared_one_transaction: [["BEGIN", PREPARE], (id) => [EXECUTE(id)], ["COMMIT"]],
};

/** The statements of a case for ids 1..n, in the order the seed's SQL file sends them. */
export function* statements(c: CaseId, n: number): Generator<string> {
  if (c === "bulk_update") {
    const ids = Array.from({ length: n }, (_, i) => i + 1).join(", ");
    yield `UPDATE benchmark_accounts SET status = 'active' WHERE id IN (${ids})`;
    return;
  }
  const [head, each, tail] = SHAPES[c];
  yield* head;
  for (let id = 1; id <= n; id++) yield* each(id);
  yield* tail;
}
