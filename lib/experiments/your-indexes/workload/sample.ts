/** `sampleFrom`: rows and index statistics read from the reader's server, in one READ ONLY transaction there. */
import { pipeline } from "node:stream/promises";
import { Client } from "pg";
import { from as copyFrom, to as copyTo } from "pg-copy-streams";
import { connectAdmin, PlaintextRefusedError } from "../../../targets/external/external-target";
import { ignored } from "../../../runtime/debug";
import { InputError } from "../../../runtime/input-error";
import { redactText } from "../../../targets/uri";
import type { StartedServer } from "../../../targets/types";
import { withAdmin } from "../../../workloads/fresh-copies";
import { errorMessage } from "../../../runtime/error-message";

/** The source could not be read: says why (the URI's password never appears). */
export class SourceError extends Error {
  override readonly name = "SourceError";
}

export interface SourceIndexUsage {
  readonly table: string;
  readonly index: string;
  readonly idxScan: number;
  /** PostgreSQL ≥ 16: when the index was last scanned. */
  readonly lastIdxScan?: string;
}

/** `existing: "unused"` refused: the statistics window is shorter than the reader accepts, or none is unused. */
export class UnusedIndexesError extends InputError {
  override readonly name = "UnusedIndexesError";
}

/** "12 days", "5 h", "3 min", "40 s". */
function windowText(seconds: number): string {
  if (seconds >= 2 * 86400) return `${Math.floor(seconds / 86400)} days`;
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min`;
  return `${Math.max(0, Math.round(seconds))} s`;
}

export interface SourceStats {
  /** The URI without its password. */
  readonly source: string;
  readonly version: string;
  /** A standby's counters are its own. */
  readonly standby: boolean;
  /** Absent: never reset. */
  readonly statsReset?: string;
  readonly windowSeconds?: number;
  readonly indexes: readonly (SourceIndexUsage & { readonly backsConstraint: boolean })[];
}

export type SourceInfo = SourceStats & { readonly rowsCopied: Readonly<Record<string, number>> };

/** `fn` in one READ ONLY snapshot of the source, connected by the external target's rules; failing: a SourceError. */
async function withReadOnlySource<T>(
  uri: string,
  what: string,
  fn: (source: Client, shown: string) => Promise<T>,
): Promise<T> {
  const shown = redactText(uri);
  const { client: source } = await connectAdmin(uri, { applicationName: "dblab-sample (read only)" }).catch(
    (error: unknown) => {
      const why = error instanceof PlaintextRefusedError ? "refused" : "cannot connect to";
      throw new SourceError(`sampleFrom: ${why} ${shown}: ${redactText(errorMessage(error))}`, { cause: error });
    },
  );
  try {
    await source.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    return await fn(source, shown);
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(`sampleFrom: reading ${what}${shown} failed: ${errorMessage(error)}`, { cause: error });
  } finally {
    await source.query("ROLLBACK").catch(ignored("sampleFrom: ROLLBACK on the source"));
    await source.end().catch(ignored("sampleFrom: closing the source"));
  }
}

/** Every index's idx_scan since stats_reset (≥ 16: last_idx_scan), and whether it backs a constraint. */
async function statsOf(source: Client, shown: string): Promise<SourceStats> {
  // JSON's nulls are stripped: an absent reset, window or last scan is a field left out.
  const { rows } = await source.query<{ stats: Omit<SourceStats, "source"> }>(
    `SELECT json_strip_nulls(json_build_object('version', current_setting('server_version'),
       'standby', pg_is_in_recovery(), 'statsReset', d.stats_reset::text,
       'windowSeconds', extract(epoch FROM now() - d.stats_reset)::float8,
       'indexes', (SELECT coalesce(json_agg(json_build_object('table', s.relname, 'index', s.indexrelname,
           'idxScan', s.idx_scan, 'lastIdxScan', to_jsonb(s) ->> 'last_idx_scan',
           'backsConstraint', x.indisunique OR EXISTS (SELECT 1 FROM pg_constraint c
             WHERE c.conindid = s.indexrelid AND c.contype IN ('p', 'u', 'x', 'f')))
           ORDER BY s.relname, s.indexrelname), '[]')
         FROM pg_stat_user_indexes s JOIN pg_index x ON x.indexrelid = s.indexrelid))) AS stats
     FROM pg_stat_database d WHERE d.datname = current_database()`,
  );
  return { source: shown, ...rows[0].stats };
}

export const readSourceStats = (uri: string): Promise<SourceStats> =>
  withReadOnlySource(uri, "the statistics of ", statsOf);

function statsWindowText(s: SourceStats): string {
  const from = s.standby
    ? `${s.source}, a standby: its counters are its own (scans on the primary or other standbys are not in them)`
    : s.source;
  const window =
    s.windowSeconds !== undefined
      ? `in ${windowText(s.windowSeconds)} (since stats_reset ${s.statsReset})`
      : "since its statistics began (never reset: the window's length is not known)";
  return `${window}, read from ${from}`;
}

/** `existing: "unused"`: the source's never-scanned indexes that back no constraint; refused on a short window. */
export function unusedIndexes(s: SourceStats, minStatsDays: number): { names: string[]; text: string } {
  const window = statsWindowText(s);
  if (s.windowSeconds !== undefined && s.windowSeconds < minStatsDays * 86400)
    throw new UnusedIndexesError(
      `existing: "unused": the statistics of ${s.source} were reset ${windowText(s.windowSeconds)} ago (${s.statsReset}), shorter than minStatsDays = ${minStatsDays}: an index that only a job running less often than that reads would look unused. Wait until the window covers your workload's cycle, lower minStatsDays if you know it does, or name the indexes in existing`,
    );
  const unused = s.indexes.filter((i) => i.idxScan === 0 && !i.backsConstraint);
  if (unused.length === 0)
    throw new UnusedIndexesError(
      `existing: "unused": every index of ${s.source} that backs no constraint was scanned ${window}; nothing to judge (name indexes in existing, or give groups)`,
    );
  const scanned = s.indexes.filter((i) => i.idxScan > 0 && !i.backsConstraint);
  return {
    names: unused.map((i) => i.index),
    text:
      `unused on the source: ${unused.length} index(es) not scanned ${window}: ${unused.map((i) => i.index).join(", ")}` +
      (scanned.length ? `; scanned: ${scanned.map((i) => `${i.index} (${i.idxScan})`).join(", ")}` : ""),
  };
}

async function copyColumns(lab: Client, table: string): Promise<string[]> {
  const { rows } = await lab.query<{ c: string }>(
    `SELECT quote_ident(attname) AS c FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '' ORDER BY attnum`,
    [table],
  );
  return rows.map((r) => r.c);
}

/** Up to `rows` rows of each table (a Bernoulli sample) copied into `database`, foreign keys unchecked (a sample
 * does not hold every row its keys point to) and sequences set past the copied keys. */
export function sampleFromSource(
  uri: string,
  tables: readonly string[],
  rows: number,
  server: StartedServer,
  database: string,
  signal?: AbortSignal,
): Promise<SourceInfo> {
  return withReadOnlySource(uri, "", async (source, shown) => {
    const stats = await statsOf(source, shown);
    const rowsCopied: Record<string, number> = {};
    await withAdmin(server, database, async (lab) => {
      await lab.query("SET session_replication_role = replica");
      for (const table of tables) {
        signal?.throwIfAborted();
        const found = await source.query<{ n: string | null }>(
          "SELECT (SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = to_regclass($1))::text AS n",
          [table],
        );
        if (found.rows[0].n === null)
          throw new SourceError(`sampleFrom: ${shown} has no table ${table} (the schema file has it)`);
        const estimate = Number(found.rows[0].n);
        const columns = (await copyColumns(lab, table)).join(", ");
        const percent = estimate > 0 ? Math.min(100, (100 * rows * 1.2) / estimate) : 100;
        const select = `SELECT ${columns} FROM ${table} TABLESAMPLE BERNOULLI (${percent}) LIMIT ${rows}`;
        try {
          await pipeline(
            source.query(copyTo(`COPY (${select}) TO STDOUT`)),
            lab.query(copyFrom(`COPY ${table} (${columns}) FROM STDIN`)),
          );
        } catch (error) {
          throw new SourceError(`sampleFrom: copying ${table} from ${shown} failed: ${errorMessage(error)}`, {
            cause: error,
          });
        }
        const n = await lab.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`);
        rowsCopied[table] = Number(n.rows[0].n);
        // Identity and serial columns: next values past the copied ones.
        const sequences = await lab.query<{ col: string; seq: string }>(
          `SELECT quote_ident(a.attname) AS col, s AS seq FROM pg_attribute a, LATERAL pg_get_serial_sequence($1, a.attname) AS s
           WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND s IS NOT NULL`,
          [table],
        );
        for (const r of sequences.rows)
          await lab.query(`SELECT setval($1, coalesce((SELECT max(${r.col}) FROM ${table}), 0) + 1, false)`, [r.seq]);
      }
    });
    return { ...stats, rowsCopied };
  });
}
