/**
 * The timed window of a write trial that reads its WAL: the steps every such notebook takes around
 * its pgbench run, in the order that makes the counts exact.
 *
 * Before: no autovacuum worker running (a worker inside the window is counted, and flagged), a
 * CHECKPOINT (no dirty buffer of the clone or the index builds is written inside the window), the
 * window's WAL held on a session of its own (withWindowWal), then the start LSN and every
 * database's row writes. After (once the caller's clients are gone): the flushed end LSN, which
 * other databases wrote meanwhile (other-writes.ts), and the window's WAL by record type.
 */
import type { Client } from "pg";
import type { ConnectionInfo } from "../../targets/types";
import { waitForAutovacuumIdle, type AutovacuumWait } from "./autovacuum";
import { withClient } from "./connect";
import { databaseWrites, sharedWalNote, writtenElsewhere } from "./other-writes";
import { currentWalLsn, isWalRemoved, walRecordsBetween, withWindowWal, type WalRecordStats } from "./wal-records";

export interface TimedWindowSteps<B, R, A> {
  readonly connection: ConnectionInfo;
  /** The database the window's clients write. */
  readonly database: string;
  /** Count the window's WAL records (pg_walinspect in `database`). */
  readonly walInspect: boolean;
  /** The trial's key, for its notes. */
  readonly key: string;
  readonly onNote?: (text: string) => void;
  /** The notebook's own readings before the window, after the checkpoint and the hold. */
  readonly before: (client: Client) => Promise<B>;
  /** The window itself; it returns once every client it started is gone from the server. */
  readonly run: () => Promise<R>;
  /** The notebook's own readings after the window. */
  readonly after: (client: Client) => Promise<A>;
}

export interface TimedWindow<B, R, A> {
  readonly before: B;
  readonly run: R;
  readonly after: A;
  readonly autovacuumWait: AutovacuumWait;
  /**
   * WAL records of the window by type; absent where not asked for, or where the server lost them
   * (then a note says why).
   */
  readonly walRecords?: Readonly<Record<string, WalRecordStats>>;
  /** Other databases that wrote during the window: its WAL figures are not this run's alone (a note says so). */
  readonly walShared: readonly string[];
}

export async function timedWindow<B, R, A>(steps: TimedWindowSteps<B, R, A>): Promise<TimedWindow<B, R, A>> {
  const session = <T>(fn: (c: Client) => Promise<T>): Promise<T> =>
    withClient(steps.connection, fn, { database: steps.database, applicationName: "dblab-admin" });
  return withWindowWal(steps.connection, async (holdWal) => {
    const opened = await session(async (c) => {
      const autovacuumWait = await waitForAutovacuumIdle(c);
      await c.query("CHECKPOINT");
      const refused = steps.walInspect ? await holdWal() : undefined;
      const startLsn = await currentWalLsn(c);
      const elsewhere = await databaseWrites(c);
      return { autovacuumWait, refused, startLsn, elsewhere, before: await steps.before(c) };
    });
    const run = await steps.run();
    const closed = await session(async (c) => {
      const endLsn = await currentWalLsn(c, true);
      const walShared = writtenElsewhere(opened.elsewhere, await databaseWrites(c));
      const after = await steps.after(c);
      const walRecords = steps.walInspect
        ? await walRecordsOrNote(c, opened.startLsn, endLsn, steps, opened.refused)
        : undefined;
      return { walShared, after, walRecords };
    });
    if (closed.walShared.length) steps.onNote?.(sharedWalNote(steps.key, closed.walShared));
    return {
      before: opened.before,
      run,
      after: closed.after,
      autovacuumWait: opened.autovacuumWait,
      walShared: closed.walShared,
      ...(closed.walRecords ? { walRecords: closed.walRecords } : {}),
    };
  });
}

/**
 * The window's WAL records, or a note saying why there are none. The trial's other figures stand
 * whatever the reason (a server that recycled the WAL although it refused the hold, a pg_walinspect
 * this role may not call): only its WAL counts are missing, and the run says so.
 */
async function walRecordsOrNote(
  c: Client,
  startLsn: string,
  endLsn: string,
  steps: Pick<TimedWindowSteps<unknown, unknown, unknown>, "key" | "onNote">,
  refused: string | undefined,
): Promise<Readonly<Record<string, WalRecordStats>> | undefined> {
  try {
    return await walRecordsBetween(c, startLsn, endLsn);
  } catch (error) {
    const why = refused && isWalRemoved(error) ? `; the server did not hold the window's WAL: ${refused}` : "";
    steps.onNote?.(
      `no WAL record counts for ${steps.key}: ${error instanceof Error ? error.message : String(error)}${why}`,
    );
    return undefined;
  }
}
