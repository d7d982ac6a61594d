/**
 * MongoDB side of the index-write-cost workload, as seed 000 ran it: documents of seven int64
 * fields, ordered `insertMany` / `bulkWrite` of `updateOne` by `_id` with `{ w: 1, j: false }`,
 * single-field ascending indexes, and the server counters that explain the time.
 */
import {
  Long,
  MongoClient,
  MongoServerError,
  type AnyBulkWriteOperation,
  type Collection,
  type Document,
} from "mongodb";
import type { Dataset } from "./dataset";
import type { IndexWriteEngine } from "./engine";
import type { Counters } from "../../../stats/counters";
import type { MongoCounterKey } from "./counter-keys";
import { connectMongo } from "../../../engines/mongodb/connect";
import { collectionCounters, serverCounters } from "../../../engines/mongodb/counters";
import { FIELDS, UPDATED_COLUMNS, type Field, type UpdateOperation } from "./operations";

export const COLLECTION = "write_cost_rows";

/** One row of seed 000. Every value is a BSON int64 (the seed's Go harness wrote int64). */
export interface RowDocument {
  _id: Long;
  counter: Long;
  field1: Long;
  field2: Long;
  field3: Long;
  field4: Long;
  field5: Long;
}

/** The seed's write concern for the timed writes: acknowledged by the primary, no journal wait. */
const TIMED_WRITE_CONCERN = { w: 1, journal: false } as const;
/** Rows per untimed load call: large enough to be quick, well under the 48 MB message limit (~90 B/doc). */
const LOAD_CHUNK_ROWS = 10_000;
/** MongoDB's error code for dropping a collection that does not exist (servers before 7.0). */
const NAMESPACE_NOT_FOUND = 26;

// Shared, immutable values: the serializer only reads them, so one instance serves every row.
const ZERO = Long.fromNumber(0);
const ONE = Long.fromNumber(1);

/**
 * The `$inc` document of each operation, built once and shared by every statement. The increment
 * is a Long, as the Go harness's int64: int64 + int64 stays int64 (a double 1 would turn the field
 * into a double).
 */
const INCREMENTS: Readonly<Record<UpdateOperation, Document>> = {
  update_nonindexed: incrementOf("update_nonindexed"),
  update_one_field: incrementOf("update_one_field"),
  update_five_fields: incrementOf("update_five_fields"),
};

function incrementOf(operation: UpdateOperation): Document {
  const inc: Record<string, Long> = {};
  for (const column of UPDATED_COLUMNS[operation]) inc[column] = ONE;
  return { $inc: inc };
}

/** Rows [start, end) as documents, in id order. A plain loop: this runs inside the timed unit. */
function rowDocuments(dataset: Dataset, start: number, end: number): RowDocument[] {
  const [f1, f2, f3, f4, f5] = dataset.fields;
  const docs = new Array<RowDocument>(end - start);
  for (let i = start; i < end; i++) {
    docs[i - start] = {
      _id: Long.fromNumber(i + 1),
      counter: ZERO,
      field1: Long.fromNumber(f1[i]),
      field2: Long.fromNumber(f2[i]),
      field3: Long.fromNumber(f3[i]),
      field4: Long.fromNumber(f4[i]),
      field5: Long.fromNumber(f5[i]),
    };
  }
  return docs;
}

export class MongoIndexWriteCollection implements IndexWriteEngine {
  readonly engine = "mongodb" as const;

  private constructor(
    private readonly client: MongoClient,
    private readonly databaseName: string,
  ) {}

  /** The collection; looked up per use because `recreate` drops it. */
  private get collection(): Collection<RowDocument> {
    return this.client.db(this.databaseName).collection<RowDocument>(COLLECTION);
  }

  static async open(uri: string, database: string): Promise<MongoIndexWriteCollection> {
    const client = await connectMongo(
      uri,
      {
        // Concurrency 1, as the seed: one connection does the timed writes. minPoolSize keeps it open
        // between trials so no timed batch pays for a new connection and its authentication.
        maxPoolSize: 2,
        minPoolSize: 1,
        // A timed 1,000-row batch with 5 indexes can take seconds on a slow disk; never time it out.
        socketTimeoutMS: 0,
      },
      "MongoDB write-cost client",
    );
    return new MongoIndexWriteCollection(client, database);
  }

  /**
   * Drops and recreates the collection. `fillfactor` is ignored: WiredTiger has no per-collection
   * page fill setting (pages split by size, and updates rewrite documents in new page images).
   */
  async recreate(_options: { readonly fillfactor: number }): Promise<void> {
    const db = this.client.db(this.databaseName);
    try {
      await db.collection(COLLECTION).drop();
    } catch (error) {
      // Servers before 7.0 refuse to drop a collection that does not exist; 7.0+ answer ok.
      if (!(error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND)) throw error;
    }
    await db.createCollection(COLLECTION);
  }

  async load(dataset: Dataset): Promise<void> {
    for (let start = 0; start < dataset.rows; start += LOAD_CHUNK_ROWS) {
      const end = Math.min(dataset.rows, start + LOAD_CHUNK_ROWS);
      // Unordered: the server may apply the chunk without stopping at the first error (there are
      // none); the load is untimed, so only speed and completeness matter.
      await this.collection.insertMany(rowDocuments(dataset, start, end), { ordered: false, writeConcern: { w: 1 } });
    }
  }

  async createIndexes(fields: readonly Field[]): Promise<void> {
    if (fields.length === 0) return;
    for (const field of fields) {
      if (!(FIELDS as readonly string[]).includes(field)) throw new Error(`unknown field ${field}`);
    }
    // One command for all: the server builds them in one collection scan. Separate single-field
    // indexes, not a compound one, as the seed. Names are the server's default (`field1_1`).
    await this.collection.createIndexes(fields.map((field) => ({ key: { [field]: 1 }, name: `${field}_1` })));
  }

  async insertBatch(dataset: Dataset, start: number, end: number): Promise<void> {
    await this.collection.insertMany(rowDocuments(dataset, start, end), {
      ordered: true,
      writeConcern: TIMED_WRITE_CONCERN,
    });
  }

  async updateBatch(dataset: Dataset, operation: UpdateOperation, start: number, end: number): Promise<void> {
    const update = INCREMENTS[operation];
    const order = dataset.updateOrder;
    const operations = new Array<AnyBulkWriteOperation<RowDocument>>(end - start);
    for (let k = start; k < end; k++) {
      operations[k - start] = { updateOne: { filter: { _id: Long.fromNumber(order[k] + 1) }, update } };
    }
    await this.collection.bulkWrite(operations, { ordered: true, writeConcern: TIMED_WRITE_CONCERN });
  }

  async counters(): Promise<Counters<MongoCounterKey>> {
    return { ...(await serverCounters(this.client)), ...(await collectionCounters(this.collection)) };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
