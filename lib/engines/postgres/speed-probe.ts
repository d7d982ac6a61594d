/**
 * A short fixed write-path probe of the machine's speed state, run before each timed run.
 *
 * Why this probe: the state that moves this machine's results is on the write path. A 3 s select-only
 * pgbench stayed at 8.0–8.8k TPS while tpcb-like went 2.8k ↔ 2.0k and UPDATE pgbench_accounts
 * 0.088 ↔ 0.15 ms between runs minutes apart, so a read-only or CPU loop does not see it. The probe
 * is PROBE_UPDATES single-row UPDATEs, each its own transaction (UPDATE + COMMIT), on a 100-row table
 * in its own database, with synchronous_commit off for its session so that the disk's fsync (another
 * quantity, recorded by the fsync probe) does not enter it. Its median latency is the state's
 * figure. Cost: ~50–100 ms of statements plus a connection, so even 01's many short trials can afford
 * one per repeat (see `probeOnce`).
 * A server restarted on the same port keeps its probe database (it is in the data directory).
 */
import type { Client } from "pg";
import type { ConnectionInfo } from "../../targets/types";
import type { SpeedProbe } from "../../stats/speed";
import { connect, withClient } from "./connect";
import { ignored } from "../../runtime/debug";

export const PROBE_DATABASE = "dblab_speed_probe";
export const PROBE_UPDATES = 400;
const WARMUP = 40;
const ROWS = 100;
const WHAT = `${PROBE_UPDATES} single-row UPDATE + COMMIT (synchronous_commit off), own database`;

/** One server, however many connection objects name it. */
const serverKey = (c: ConnectionInfo) => `${c.host}:${c.port}`;
const ready = new Map<string, Promise<string | undefined>>();

/**
 * Creates the probe's database once per server. On an external server (only the lab's own database
 * is dropped at the end), or where the lab may not create databases, the probe table goes into the
 * connection's own database instead.
 */
function probeDatabase(connection: ConnectionInfo): Promise<string | undefined> {
  if (connection.ownDatabaseOnly) return Promise.resolve(connection.database);
  let p = ready.get(serverKey(connection));
  if (!p) {
    p = withClient(connection, async (admin) => {
      const { rows } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [PROBE_DATABASE]);
      if (rows.length) return PROBE_DATABASE;
      return admin.query(`CREATE DATABASE ${PROBE_DATABASE}`).then(
        () => PROBE_DATABASE,
        () => undefined,
      );
    }).catch(() => undefined);
    ready.set(serverKey(connection), p);
  }
  return p;
}

async function prepare(client: Client): Promise<void> {
  await client.query("SET synchronous_commit = off");
  await client.query(`CREATE TABLE IF NOT EXISTS dblab_speed_probe (id int PRIMARY KEY, v bigint NOT NULL DEFAULT 0)`);
  await client.query(
    `INSERT INTO dblab_speed_probe (id) SELECT g FROM generate_series(1, ${ROWS}) g ON CONFLICT DO NOTHING`,
  );
}

/**
 * Runs the probe now on the PostgreSQL server behind `connection` and returns its figures; never
 * throws (a probe that fails is undefined: the trial is recorded without it).
 */
export async function probeSpeed(connection: ConnectionInfo, sharedBy?: string): Promise<SpeedProbe | undefined> {
  let client: Client | undefined;
  try {
    const database = await probeDatabase(connection);
    client = await connect(connection, { database, applicationName: "dblab-speed-probe" });
    await prepare(client);
    const times: number[] = [];
    for (let i = 0; i < WARMUP + PROBE_UPDATES; i++) {
      const t0 = process.hrtime.bigint();
      await client.query("UPDATE dblab_speed_probe SET v = v + 1 WHERE id = $1", [(i % ROWS) + 1]);
      if (i >= WARMUP) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    return {
      what: WHAT,
      medianMs: times[Math.floor(times.length / 2)],
      p90Ms: times[Math.floor(times.length * 0.9)],
      n: times.length,
      at: new Date().toISOString(),
      ...(sharedBy ? { sharedBy } : {}),
    };
  } catch {
    return undefined;
  } finally {
    await client?.end().catch(ignored("speed probe: end the client"));
  }
}

const once = new Map<string, { key: string; probe: Promise<SpeedProbe | undefined> }>();

/**
 * One probe per `key` (e.g. "repeat 3") and server: for notebooks whose trials take a second or two,
 * a probe per repeat keeps its cost small while still naming the state each repeat ran in.
 */
export function probeOnce(connection: ConnectionInfo, key: string): Promise<SpeedProbe | undefined> {
  const last = once.get(serverKey(connection));
  if (last?.key === key) return last.probe;
  const probe = probeSpeed(connection, key);
  once.set(serverKey(connection), { key, probe });
  return probe;
}
