/**
 * The finished index's shape from pgstattuple's pgstatindex(): how full its leaf pages are and
 * how far their physical order is from their logical order, which tells a bottom-up build (pages
 * packed to fillfactor, written left to right) from a tree grown by page splits.
 */
import type { TrialSession } from "./session";
import { INDEX, TABLE } from "./sql";

export interface IndexShape {
  readonly treeLevel: number;
  readonly indexBytes: number;
  readonly tableBytes: number;
  readonly leafPages: number;
  readonly internalPages: number;
  readonly emptyPages: number;
  readonly deletedPages: number;
  /** Mean fill of leaf pages, percent (a CREATE INDEX build packs them to fillfactor 90). */
  readonly avgLeafDensity: number;
  /** Share of leaf pages whose right sibling is physically before them, percent. */
  readonly leafFragmentation: number;
}

export async function ensurePgstattuple(session: TrialSession): Promise<void> {
  await session.query("CREATE EXTENSION IF NOT EXISTS pgstattuple");
}

export async function indexShape(session: TrialSession): Promise<IndexShape> {
  const [row] = await session.query<Record<string, string | number>>(
    `SELECT s.tree_level, s.index_size, s.leaf_pages, s.internal_pages, s.empty_pages, s.deleted_pages,
            s.avg_leaf_density, s.leaf_fragmentation, pg_relation_size('${TABLE}') AS table_bytes
       FROM pgstatindex('${INDEX}') AS s`,
  );
  const n = (k: string) => Number(row[k]);
  return {
    treeLevel: n("tree_level"),
    indexBytes: n("index_size"),
    tableBytes: n("table_bytes"),
    leafPages: n("leaf_pages"),
    internalPages: n("internal_pages"),
    emptyPages: n("empty_pages"),
    deletedPages: n("deleted_pages"),
    avgLeafDensity: n("avg_leaf_density"),
    leafFragmentation: n("leaf_fragmentation"),
  };
}
