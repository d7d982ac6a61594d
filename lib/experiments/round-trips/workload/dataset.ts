/**
 * The seed's table and data (initdb/seed_updates.sql), status indexed; the balance, random in the
 * seed, is a function of the id here so every trial starts from the same bytes.
 */
import type { Client } from "pg";

const CREATE = `
CREATE TABLE IF NOT EXISTS benchmark_accounts (
    id BIGSERIAL PRIMARY KEY,
    status TEXT NOT NULL,
    balance NUMERIC(12,2) NOT NULL DEFAULT 0,
    last_accessed TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    version INTEGER NOT NULL DEFAULT 0,
    note TEXT NOT NULL DEFAULT ''
)`;

const INDEX = "CREATE INDEX IF NOT EXISTS idx_benchmark_accounts_status ON benchmark_accounts (status)";

const load = (rows: number) => `
INSERT INTO benchmark_accounts (id, status, balance, last_accessed, version, note)
SELECT gs,
       CASE WHEN gs % 5 = 0 THEN 'suspended' WHEN gs % 2 = 0 THEN 'active' ELSE 'inactive' END,
       ((gs * 7919) % 1000000) / 100.0,
       TIMESTAMPTZ '2025-01-01 00:00:00+00' - (gs % 365) * INTERVAL '1 day',
       gs % 100,
       'seed row ' || gs
FROM generate_series(1, ${rows}) AS gs`;

/** Rows whose status an UPDATE … SET status = 'active' of ids 1..n really changes (not already active). */
export function changedRows(n: number): number {
  let changed = 0;
  for (let id = 1; id <= n; id++) if (id % 5 === 0 || id % 2 !== 0) changed++;
  return changed;
}

/**
 * Recreates the seed's starting state, so every trial updates the same mix of rows. Untimed.
 * The table's rows go in one statement string: one round trip, one transaction, one commit. The
 * reset's commits wait for no standby (synchronous_commit local): a trial with standbys waits for
 * them to replay the reset before its timed part (waitForReplay), so they end where they did.
 */
export async function resetTable(client: Client, rows: number): Promise<void> {
  await client.query("SET synchronous_commit = local");
  await client.query(
    [
      CREATE,
      "TRUNCATE benchmark_accounts RESTART IDENTITY",
      load(rows),
      `SELECT setval(pg_get_serial_sequence('benchmark_accounts', 'id'), ${rows}, true)`,
      INDEX,
    ].join(";\n"),
  );
  // Hint bits and the visibility map set now, not by the timed UPDATEs.
  await client.query("VACUUM (ANALYZE) benchmark_accounts");
  // Dirty pages out now, so every trial starts with the same checkpoint state (and full-page writes).
  await client.query("CHECKPOINT");
  await client.query("RESET synchronous_commit");
}
