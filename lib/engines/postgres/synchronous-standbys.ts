/**
 * Quorum commit: `synchronous_standby_names` by ALTER SYSTEM and reload, waited on until the standbys
 * report it; reset before the standbys go, so no commit waits for a departing standby.
 */
import type { Client } from "pg";
import { ignored } from "../../runtime/debug";

/** Sets `names` (e.g. "ANY 1 (s1, s2)") and waits until `standbys` standbys are quorum-synchronous. */
export async function requireSynchronousStandbys(
  admin: Client,
  names: string,
  standbys: number,
  timeoutMs = 30_000,
): Promise<void> {
  // ALTER SYSTEM takes no parameters: the names are the lab's own constant, quoted for SQL.
  await admin.query(`ALTER SYSTEM SET synchronous_standby_names = '${names.replace(/'/g, "''")}'`);
  await admin.query("SELECT pg_reload_conf()");
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await admin.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_replication WHERE sync_state = 'quorum'",
    );
    if (Number(rows[0].n) === standbys) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the standbys did not become quorum-synchronous within ${timeoutMs} ms`);
}

/** Commits stop waiting for standbys; never throws, so it cannot hide the error that ended the phase. */
export async function releaseSynchronousStandbys(admin: Client | undefined): Promise<void> {
  await admin?.query("ALTER SYSTEM RESET synchronous_standby_names").catch(ignored("reset synchronous standbys"));
  await admin?.query("SELECT pg_reload_conf()").catch(ignored("pg_reload_conf() after resetting standbys"));
}
