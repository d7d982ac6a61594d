/** What the lab left on a PostgreSQL server it was pointed at: its databases, templates and clones. */
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { Client } from "pg";
import type { StartedServer } from "../../lib/targets/types";

type Reachable = Pick<StartedServer, "connection">;

/** The names of the server's databases that start with `dblab` (every name the lab gives one). */
export async function labDatabases(server: Reachable): Promise<string[]> {
  const c = new Client(server.connection);
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'dblab%' ORDER BY datname",
    );
    return rows.map((r) => r.datname);
  } finally {
    await c.end();
  }
}

/**
 * The start of a test that inspects a server other tests of its file share: whatever lab database an
 * earlier test left there (one that failed or was killed before its own cleanup) is dropped, each
 * named in a diagnostic with the reason, and the server is checked to hold none after. A test that
 * asserts on what is on the server then starts from a server it has checked, so one test's
 * leftovers fail that test, never the next one. Only the lab's names (`dblab…`) are touched: what a
 * test made under other names is its own to clean. For tests that share a server one after the
 * other: a test running beside this one on the same server would lose its databases.
 */
export async function cleanLabDatabases(t: TestContext, server: Reachable): Promise<void> {
  const c = new Client(server.connection);
  await c.connect();
  try {
    const { rows } = await c.query<{ name: string; comment: string | null; sessions: number }>(
      `SELECT datname AS name, shobj_description(d.oid, 'pg_database') AS comment,
              (SELECT count(*)::int FROM pg_stat_activity a WHERE a.datid = d.oid) AS sessions
       FROM pg_database d WHERE datname LIKE 'dblab%' ORDER BY datname`,
    );
    for (const d of rows) {
      t.diagnostic(
        `before the test: dropping ${d.name} (${d.sessions} session(s), comment: ${d.comment ?? "none"}), ` +
          `left on this shared server by an earlier test: a test starts from a server that holds nothing of another`,
      );
      // FORCE: a session of the earlier test (or of a server-side statement it left running) ends with it.
      await c.query(`DROP DATABASE IF EXISTS "${d.name.replace(/"/g, '""')}" WITH (FORCE)`);
    }
    const { rows: left } = await c.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'dblab%' ORDER BY datname",
    );
    assert.deepEqual(
      left.map((r) => r.datname),
      [],
      "no lab database on the server before the test, once an earlier test's are dropped",
    );
  } finally {
    await c.end();
  }
}
