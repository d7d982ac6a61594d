/** MongoDB side, as seed 000 ran it: seven int64 fields, ordered insertMany / bulkWrite by `_id`, w: 1, j: false. */
import {
  Long,
  MongoClient,
  MongoServerError,
  type AnyBulkWriteOperation,
  type Collection,
  type Document,
} from "mongodb";
import { batchRanges, type Dataset, type IndexWriteEngine, type MongoCounterKey } from "./engine";
import type { Counters } from "../../../stats/counters";
import { connectMongo } from "../../../engines/mongodb/connect";
import { collectionCounters, serverCounters } from "../../../engines/mongodb/counters";
import { byUpdate, FIELDS, type Field, type UpdateOperation } from "./operations";

export const COLLECTION = "write_cost_rows";

/** Every value a BSON int64, as the seed's Go harness wrote. */
type RowDocument = Record<"_id" | "counter" | Field, Long>;

const TIMED_WRITE_CONCERN = { w: 1, journal: false } as const;
/** Well under the 48 MB message limit (~90 B/doc). */
const LOAD_CHUNK_ROWS = 10_000;
/** MongoDB's error code for dropping a collection that does not exist (servers before 7.0). */
const NAMESPACE_NOT_FOUND = 26;

const ZERO = Long.fromNumber(0);
const ONE = Long.fromNumber(1);

/** Each operation's `$inc`, built once; a Long, so int64 + int64 stays int64 (a double 1 would make a double). */
const INCREMENTS = byUpdate<Document>((cols) => ({ $inc: Object.fromEntries(cols.map((c) => [c, ONE])) }));

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

  private get collection(): Collection<RowDocument> {
    return this.client.db(this.databaseName).collection<RowDocument>(COLLECTION);
  }

  static async open(uri: string, database: string): Promise<MongoIndexWriteCollection> {
    // One connection for the timed writes, as the seed, kept open so no batch pays for a new one; never time out.
    const options = { maxPoolSize: 2, minPoolSize: 1, socketTimeoutMS: 0 };
    return new MongoIndexWriteCollection(await connectMongo(uri, options, "MongoDB write-cost client"), database);
  }

  /** `fillfactor` is ignored: WiredTiger has no page fill setting. */
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
    for (const [start, end] of batchRanges(dataset.rows, LOAD_CHUNK_ROWS))
      await this.collection.insertMany(rowDocuments(dataset, start, end), { ordered: false, writeConcern: { w: 1 } });
  }

  async createIndexes(fields: readonly Field[]): Promise<void> {
    if (fields.length === 0) return;
    for (const field of fields)
      if (!(FIELDS as readonly string[]).includes(field)) throw new Error(`unknown field ${field}`);
    // One command, one collection scan; single-field indexes as the seed, the server's default names.
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
    for (let k = start; k < end; k++)
      operations[k - start] = { updateOne: { filter: { _id: Long.fromNumber(order[k] + 1) }, update } };
    await this.collection.bulkWrite(operations, { ordered: true, writeConcern: TIMED_WRITE_CONCERN });
  }

  async counters(): Promise<Counters<MongoCounterKey>> {
    return { ...(await serverCounters(this.client)), ...(await collectionCounters(this.collection)) };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
