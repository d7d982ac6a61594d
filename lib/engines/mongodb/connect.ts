/** MongoDB clients as every experiment opens them. */
import { MongoClient, type MongoClientOptions } from "mongodb";
import { ignored } from "../../runtime/debug";
import { handleErrors } from "../../runtime/error-events";

/**
 * A connected client that answered `ping`, its connection-level errors routed to its owner; `options` override the
 * defaults.
 */
export async function connectMongo(uri: string, options: MongoClientOptions, what: string): Promise<MongoClient> {
  const client = new MongoClient(uri, { appName: "db-write-lab", serverSelectionTimeoutMS: 15_000, ...options });
  handleErrors(client, what);
  try {
    await client.connect();
    await client.db("admin").command({ ping: 1 });
    return client;
  } catch (error) {
    await client.close().catch(ignored("mongodb: close the client after a failed open"));
    throw error;
  }
}
