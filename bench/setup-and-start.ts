/**
 * Benchmarks of the untimed loaders (COPY of N deterministic rows vs the server
 * generating N rows itself), index creation, server start to first query, and the ways to reset a
 * table between trials.
 */
import { EmbeddedPostgresTarget } from "../lib/targets/embedded/embedded-postgres";
import { dockerAvailable } from "../lib/targets/docker/docker-client";
import { PostgresIndexWriteTable } from "../lib/experiments/index-write-cost/workload/postgres-table";
import { connect, withClient } from "../lib/engines/postgres/connect";
import type { ConnectionInfo } from "../lib/targets/types";
import { medianRtt } from "../lib/network/calibrate";
import { selectOneProbe } from "../lib/workloads/statement-timing";
import { makeDataset } from "../lib/experiments/index-write-cost/workload/engine";
import { FIELDS } from "../lib/experiments/index-write-cost/workload/operations";

const seconds = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e9;

async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return seconds(t0);
}

export interface SetupResult {
  readonly rows: number;
  /** The first load of a data set: its COPY text is made, then sent. */
  readonly copySeconds: number;
  /** A later trial's load of the same data set: the text is kept (postgres-table's copyText), only sent. Absent in
   * reports written before it was measured. */
  readonly copyAgainSeconds?: number;
  readonly generateSeriesSeconds: number;
  /** COPY / server-side generation; goal ≤ 1.5. */
  readonly copyRatio: number;
  /** The primary key and the five field indexes, built after the load as a trial's table is. */
  readonly createFiveIndexesSeconds: number;
  readonly reset: { readonly dropCreate: number; readonly truncate: number; readonly templateClone: number };
}

export async function benchSetup(rows = 1_000_000): Promise<SetupResult> {
  const server = await new EmbeddedPostgresTarget().start({
    engine: "postgresql",
    name: "bench-setup",
    settings: { shared_buffers: "1GB", synchronous_commit: "off", max_wal_size: "4GB" },
  });
  try {
    const table = await PostgresIndexWriteTable.open(server.connection);
    const admin = await connect(server.connection);
    const dataset = makeDataset(rows, 42);
    await table.recreate({ fillfactor: 100 });
    const copySeconds = await timed(() => table.load(dataset));
    await table.recreate({ fillfactor: 100 });
    const copyAgainSeconds = await timed(() => table.load(dataset));
    const createFiveIndexesSeconds = await timed(() => table.createIndexes(FIELDS));
    await table.recreate({ fillfactor: 100 });
    const generateSeriesSeconds = await timed(async () => {
      await admin.query(
        `INSERT INTO write_cost_rows SELECT g, 0, ${FIELDS.map(() => "(random() * 9007199254740991)::bigint").join(", ")} FROM generate_series(1, $1) g`,
        [rows],
      );
      await admin.query("ANALYZE write_cost_rows");
    });
    // Reset strategies on the loaded table: what a trial needs is an empty table of the same shape.
    const dropCreate = await timed(() => table.recreate({ fillfactor: 100 }));
    await table.load(dataset);
    const truncate = await timed(() => admin.query("TRUNCATE write_cost_rows"));
    await admin.query("CREATE DATABASE bench_template");
    const templateClone = await timed(() => admin.query("CREATE DATABASE bench_clone TEMPLATE bench_template"));
    await table.close();
    await admin.end();
    return {
      rows,
      copySeconds,
      copyAgainSeconds,
      generateSeriesSeconds,
      copyRatio: copySeconds / generateSeriesSeconds,
      createFiveIndexesSeconds,
      reset: { dropCreate, truncate, templateClone },
    };
  } finally {
    await server.stop();
  }
}

export interface StartResult {
  readonly embeddedStartSeconds: number;
  readonly dockerStartSeconds?: number;
  readonly dockerNote?: string;
  /** Median SELECT 1 round trip, ms: what every statement of a round-trip-bound workload pays. */
  readonly selectOneMs: {
    readonly embedded: number;
    readonly dockerBridge?: number;
    readonly dockerPublished?: number;
  };
}

/** Median of `n` SELECT 1 round trips on one connection, after a warm-up. */
function selectOneMs(connection: ConnectionInfo, n = 2000): Promise<number> {
  return withClient(connection, (c) => medianRtt(selectOneProbe(c), n, 200));
}

export async function benchServerStart(): Promise<StartResult> {
  const t0 = process.hrtime.bigint();
  const embedded = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "bench-start" });
  const embeddedStartSeconds = seconds(t0);
  const embeddedRtt = await selectOneMs(embedded.connection);
  await embedded.stop();
  if (!(await dockerAvailable()))
    return { embeddedStartSeconds, dockerNote: "no Docker daemon answers", selectOneMs: { embedded: embeddedRtt } };
  const { DockerTarget } = await import("../lib/targets/docker/docker-target");
  const target = new DockerTarget({});
  // The first start may build the stand-in image; time the second, as a user waits for it.
  await (await target.start({ engine: "postgresql", name: "bench-warm" })).stop();
  const t1 = process.hrtime.bigint();
  const docker = await target.start({ engine: "postgresql", name: "bench-start" });
  const dockerStartSeconds = seconds(t1);
  try {
    const published = docker.description.publishedAddress?.split(":");
    const viaPublished = published
      ? await selectOneMs({ ...docker.connection, host: published[0], port: Number(published[1]) })
      : undefined;
    const viaBridge = docker.description.route === "bridge" ? await selectOneMs(docker.connection) : undefined;
    return {
      embeddedStartSeconds,
      dockerStartSeconds,
      dockerNote: docker.description.standInImage ? "stand-in image" : docker.description.source,
      selectOneMs: { embedded: embeddedRtt, dockerBridge: viaBridge, dockerPublished: viaPublished },
    };
  } finally {
    await docker.stop();
  }
}
