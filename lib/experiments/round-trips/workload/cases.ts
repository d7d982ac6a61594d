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

export interface CaseInfo {
  readonly label: string;
  readonly seedFile: string;
  roundTrips(n: number): number;
  /** Whether the case changes rows (the table is reset before it). */
  readonly writes: boolean;
}

export const CASE_INFO: Readonly<Record<CaseId, CaseInfo>> = {
  select1: { label: "SELECT 1 ×N (round trip)", seedFile: "roundtrip.sql", roundTrips: (n) => n, writes: false },
  update_autocommit: {
    label: "UPDATE ×N, autocommit",
    seedFile: "update_10000_without_tx.sql",
    roundTrips: (n) => n,
    writes: true,
  },
  update_one_transaction: {
    label: "UPDATE ×N in one transaction",
    seedFile: "update_10000_with_tx.sql",
    roundTrips: (n) => n + 2,
    writes: true,
  },
  update_each_transaction: {
    label: "BEGIN/UPDATE/COMMIT ×N",
    seedFile: "update_10000_each_tx.sql",
    roundTrips: (n) => 3 * n,
    writes: true,
  },
  prepared_autocommit: {
    label: "PREPARE + EXECUTE ×N, autocommit",
    seedFile: "update_10000_without_tx_prepare.sql",
    roundTrips: (n) => n + 1,
    writes: true,
  },
  prepared_one_transaction: {
    label: "PREPARE + EXECUTE ×N in one transaction",
    seedFile: "update_10000_with_tx_prepare.sql",
    roundTrips: (n) => n + 3,
    writes: true,
  },
  bulk_update: {
    label: "one UPDATE … WHERE id IN (1..N)",
    seedFile: "bulk_update.sql",
    roundTrips: () => 1,
    writes: true,
  },
};

const UPDATE = (id: number) => `UPDATE benchmark_accounts SET status = 'active' WHERE id = ${id}`;
const EXECUTE = (id: number) => `EXECUTE update_active(${id})`;
const PREPARE = "PREPARE update_active (bigint) AS UPDATE benchmark_accounts SET status = 'active' WHERE id = $1";

/** The statements of a case for ids 1..n, in the order the seed's SQL file sends them. */
export function* statements(c: CaseId, n: number): Generator<string> {
  switch (c) {
    case "select1":
      for (let i = 0; i < n; i++) yield "SELECT 1";
      return;
    case "update_autocommit":
      for (let id = 1; id <= n; id++) yield UPDATE(id);
      return;
    case "update_one_transaction":
      yield "BEGIN";
      for (let id = 1; id <= n; id++) yield UPDATE(id);
      yield "COMMIT";
      return;
    case "update_each_transaction":
      for (let id = 1; id <= n; id++) {
        yield "BEGIN";
        yield UPDATE(id);
        yield "COMMIT";
      }
      return;
    case "prepared_autocommit":
      yield PREPARE;
      for (let id = 1; id <= n; id++) yield EXECUTE(id);
      return;
    case "prepared_one_transaction":
      yield "BEGIN";
      yield PREPARE;
      for (let id = 1; id <= n; id++) yield EXECUTE(id);
      yield "COMMIT";
      return;
    case "bulk_update": {
      const ids = Array.from({ length: n }, (_, i) => i + 1).join(", ");
      yield `UPDATE benchmark_accounts SET status = 'active' WHERE id IN (${ids})`;
      return;
    }
  }
}
