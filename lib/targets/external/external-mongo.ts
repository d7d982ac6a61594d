/** An external MongoDB given by URI; the lab works only in a database it creates (and drops). */
import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { redactUri } from "../uri";
import type { ConnectionInfo, ServerDescription, StartedServer } from "../types";

export class ExternalMongoServer implements StartedServer {
  readonly kind = "external" as const;
  readonly engine = "mongodb" as const;
  private stopped = false;

  private constructor(
    readonly uri: string,
    readonly connection: ConnectionInfo,
    readonly description: ServerDescription,
    readonly id: string,
  ) {}

  static async connect(uri: string): Promise<ExternalMongoServer> {
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 });
    try {
      await client.connect();
      const info = await client.db("admin").command({ buildInfo: 1 });
      const url = new URL(uri.replace(/^mongodb\+srv:/, "https:"));
      const database = `dblab_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
      const connection: ConnectionInfo = {
        host: url.hostname,
        port: Number(url.port || 27017),
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database,
      };
      const description: ServerDescription = {
        engine: "mongodb",
        kind: "external",
        version: String(info.version),
        source: redactUri(uri),
        address: `${connection.host}:${connection.port}`,
      };
      return new ExternalMongoServer(uri, connection, description, database);
    } catch (error) {
      throw new Error(`Cannot reach the external MongoDB at ${redactUri(uri)}: ${(error as Error).message}`);
    } finally {
      await client.close();
    }
  }

  async restart(): Promise<void> {
    throw new Error("An external server cannot be restarted by the lab");
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const client = new MongoClient(this.uri);
    try {
      await client.connect();
      await client.db(this.connection.database).dropDatabase();
    } finally {
      await client.close();
    }
  }
}
