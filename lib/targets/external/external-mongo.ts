/** An external MongoDB given by URI; the lab works only in a database it creates (and drops). */
import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { ParameterError } from "../../params/validate";
import { EXTERNAL_STORAGE } from "../storage";
import { redactText, redactUri } from "../uri";
import type { ConnectionInfo, ServerDescription, StartedServer } from "../types";
import { handleErrors } from "../../runtime/error-events";
import { errorMessage } from "../../runtime/error-message";

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

  /** The URI goes to the driver as given, its parse read back for address and user; errors carry it redacted. */
  static async connect(uri: string): Promise<ExternalMongoServer> {
    let client: MongoClient;
    try {
      client = handleErrors(new MongoClient(uri, { serverSelectionTimeoutMS: 10_000 }), "external MongoDB session");
    } catch (error) {
      throw new ParameterError(
        `DBLAB_MONGODB_URI is not a MongoDB URI the driver accepts (${redactUri(uri)}): ${redactText(String(error))}`,
        {
          cause: error,
        },
      );
    }
    try {
      await client.connect();
      const info = await client.db("admin").command({ buildInfo: 1 });
      const o = client.options;
      const first = o.hosts[0];
      const address = o.srvHost ? `${o.srvHost} (SRV)` : o.hosts.map(String).join(",");
      const database = `dblab_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
      const connection: ConnectionInfo = {
        host: o.srvHost ?? first?.host ?? first?.socketPath ?? "",
        port: first?.port ?? 27017,
        user: o.credentials?.username ?? "",
        password: o.credentials?.password ?? "",
        database,
      };
      const description: ServerDescription = {
        engine: "mongodb",
        kind: "external",
        version: String(info.version),
        source: redactUri(uri),
        address: o.tls ? `${address}, TLS` : address,
        storageUnmeasured: EXTERNAL_STORAGE,
      };
      return new ExternalMongoServer(uri, connection, description, database);
    } catch (error) {
      throw new Error(`Cannot reach the external MongoDB at ${redactUri(uri)}: ${redactText(errorMessage(error))}`, {
        cause: error,
      });
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
    const client = handleErrors(new MongoClient(this.uri), "external MongoDB: dropping the lab's database");
    try {
      await client.connect();
      await client.db(this.connection.database).dropDatabase();
    } finally {
      await client.close();
    }
  }
}
