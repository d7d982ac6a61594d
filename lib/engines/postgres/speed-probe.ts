/**
 * A short fixed write-path probe of the machine's speed state (a read-only loop does not see it:
 * docs/claims-and-regimes.md): PROBE_UPDATES single-row UPDATE + COMMIT, synchronous_commit off, in
 * the connection's own database.
 */
import type { Client } from "pg";
import type { ConnectionInfo } from "../../targets/types";
import type { SpeedProbe } from "../../stats/speed";
import { connect } from "./connect";
import { ignored } from "../../runtime/debug";

export const PROBE_UPDATES = 400;
const WARMUP = 40;
const ROWS = 100;
const WHAT = `${PROBE_UPDATES} single-row UPDATE + COMMIT (synchronous_commit off)`;

/** One server, however many connection objects name it. */
const serverKey = (c: ConnectionInfo) => `${c.host}:${c.port}`;

async function prepare(client: Client): Promise<void> {
  await client.query("SET synchronous_commit = off");
  await client.query(`CREATE TABLE IF NOT EXISTS dblab_speed_probe (id int PRIMARY KEY, v bigint NOT NULL DEFAULT 0)`);
  await client.query(
    `INSERT INTO dblab_speed_probe (id) SELECT g FROM generate_series(1, ${ROWS}) g ON CONFLICT DO NOTHING`,
  );
}

/** Runs the probe now; never throws (a failed probe is undefined and the trial recorded without it). */
export async function probeSpeed(connection: ConnectionInfo, sharedBy?: string): Promise<SpeedProbe | undefined> {
  let client: Client | undefined;
  try {
    client = await connect(connection, { applicationName: "dblab-speed-probe" });
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

/** One probe per `key` (e.g. "repeat 3") and server, keeping the cost small for short trials. */
export function probeOnce(connection: ConnectionInfo, key: string): Promise<SpeedProbe | undefined> {
  const last = once.get(serverKey(connection));
  if (last?.key === key) return last.probe;
  const probe = probeSpeed(connection, key);
  once.set(serverKey(connection), { key, probe });
  return probe;
}
