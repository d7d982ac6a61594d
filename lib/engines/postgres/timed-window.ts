/**
 * A write trial's timed window, steps in the order that makes the counts exact: no autovacuum
 * worker, CHECKPOINT, WAL held, start LSN; after the clients are gone, end LSN and other writes.
 */
import type { Client } from "pg";
import type { ConnectionInfo } from "../../targets/types";
import { waitForAutovacuumIdle, type AutovacuumWait } from "./autovacuum";
import { withClient } from "./connect";
import { databaseWrites, sharedWalNote, writtenElsewhere } from "./other-writes";
import {
  btreeEntriesBetween,
  currentWalLsn,
  isWalRemoved,
  walRecordsBetween,
  withWindowWal,
  type WalRecordStats,
} from "./wal-records";
import { errorMessage } from "../../runtime/error-message";

export interface TimedWindowSteps<B, R, A> {
  readonly connection: ConnectionInfo;
  readonly database: string;
  readonly walInspect: boolean;
  /** Also count each B-tree's own entries (with walInspect). */
  readonly btreeEntries?: boolean;
  readonly key: string;
  readonly onNote?: (text: string) => void;
  readonly before: (client: Client) => Promise<B>;
  readonly run: () => Promise<R>;
  readonly after: (client: Client) => Promise<A>;
}

export interface TimedWindow<B, R, A> {
  readonly before: B;
  readonly run: R;
  readonly after: A;
  readonly autovacuumWait: AutovacuumWait;
  /** Absent where not asked for or lost (a note says why). */
  readonly walRecords?: Readonly<Record<string, WalRecordStats>>;
  /** Entries per B-tree of the window's database (btreeEntriesBetween); absent where not asked for or lost. */
  readonly btreeEntries?: Readonly<Record<string, number>>;
  readonly walShared: readonly string[];
}

/** What a trial's record keeps of its window; the rest of the window is the trial's own before, run and after. */
export interface WindowFacts {
  /** Absent where not asked for or lost (a note says why). */
  readonly walRecords?: Readonly<Record<string, WalRecordStats>>;
  /** Entries per B-tree of the trial's database: exact even where another database wrote in the window. */
  readonly btreeEntries?: Readonly<Record<string, number>>;
  /** Other databases wrote during the window (other-writes.ts): its WAL figures are the server's, not the trial's. */
  readonly walShared?: readonly string[];
  readonly autovacuumWait?: AutovacuumWait;
}

export const windowFacts = (w: TimedWindow<unknown, unknown, unknown>): WindowFacts => ({
  ...(w.walRecords ? { walRecords: w.walRecords } : {}),
  ...(w.btreeEntries ? { btreeEntries: w.btreeEntries } : {}),
  ...(w.walShared.length ? { walShared: w.walShared } : {}),
  autovacuumWait: w.autovacuumWait,
});

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
      const counted = <T>(count: (c: Client, start: string, end: string) => Promise<T>) =>
        countOrNote(() => count(c, opened.startLsn, endLsn), steps, opened.refused);
      const walRecords = steps.walInspect ? await counted(walRecordsBetween) : undefined;
      const btreeEntries = steps.walInspect && steps.btreeEntries ? await counted(btreeEntriesBetween) : undefined;
      return { walShared, after, walRecords, btreeEntries };
    });
    if (closed.walShared.length) steps.onNote?.(sharedWalNote(steps.key, closed.walShared));
    return {
      before: opened.before,
      run,
      after: closed.after,
      autovacuumWait: opened.autovacuumWait,
      walShared: closed.walShared,
      ...(closed.walRecords ? { walRecords: closed.walRecords } : {}),
      ...(closed.btreeEntries ? { btreeEntries: closed.btreeEntries } : {}),
    };
  });
}

/** The trial's other figures stand without a count. */
async function countOrNote<T>(
  count: () => Promise<T>,
  steps: Pick<TimedWindowSteps<unknown, unknown, unknown>, "key" | "onNote">,
  refused: string | undefined,
): Promise<T | undefined> {
  try {
    return await count();
  } catch (error) {
    const why = refused && isWalRemoved(error) ? `; the server did not hold the window's WAL: ${refused}` : "";
    steps.onNote?.(`no WAL record counts for ${steps.key}: ${errorMessage(error)}${why}`);
    return undefined;
  }
}
