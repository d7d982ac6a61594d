/**
 * A minimal MongoDB server for tests: enough of the wire protocol for the official driver to
 * connect, write and read counters, and a record of every command it was sent, so tests can check
 * what the driver actually put on the wire (not what the adapter meant to ask for).
 *
 * Speaks OP_MSG (opcode 2013; kind-0 body and kind-1 document sequences, which are merged into the
 * recorded command as arrays) and the legacy OP_QUERY (2004) with OP_REPLY, because the driver's
 * first `ismaster` on each connection goes out as OP_QUERY until the server has said it speaks
 * OP_MSG. Values are decoded with `promoteLongs: false`, so an int64 on the wire is a `Long` in the
 * record and an int32 is a number: tests can tell them apart.
 */
import net from "node:net";
import { BSON, Double, Long, type Document } from "bson";

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;
const OP_COMPRESSED = 2012;

/** OP_MSG flag bits (MongoDB wire protocol). */
const CHECKSUM_PRESENT = 1 << 0;
const MORE_TO_COME = 1 << 1;

export interface RecordedCommand {
  /** The command's name: the first key of the body, e.g. "insert". */
  readonly name: string;
  /** `$db` of an OP_MSG; the database of an OP_QUERY's `<db>.$cmd`. */
  readonly database: string;
  /** The body, with each kind-1 document sequence added as an array under its identifier. */
  readonly command: Document;
  readonly opCode: typeof OP_MSG | typeof OP_QUERY;
  /** Identifiers of the kind-1 sections (document sequences) the message carried, in order. */
  readonly sequences: readonly string[];
  /** OP_MSG flag bits (0 for OP_QUERY). */
  readonly flags: number;
}

/** A custom answer for a command; return undefined to fall back to the default handler. */
export type CommandHandler = (command: Document, server: FakeMongoServer) => Document | undefined;

export interface FakeMongoServerOptions {
  /** Reported maxWireVersion. Default 25, MongoDB 8.0 (the seed's server); 21 is 7.0. */
  readonly maxWireVersion?: number;
  /** Reported server version (buildInfo). */
  readonly version?: string;
  /** Overrides by command name (lower case). */
  readonly handlers?: Readonly<Record<string, CommandHandler>>;
}

interface CollectionState {
  documents: number;
  readonly indexes: Set<string>;
}

const ok = (fields: Document = {}): Document => ({ ...fields, ok: new Double(1) });

function commandError(code: number, codeName: string, errmsg: string): Document {
  return { ok: new Double(0), errmsg, code, codeName };
}

function readCString(buffer: Buffer, offset: number): [string, number] {
  const end = buffer.indexOf(0, offset);
  if (end < 0) throw new Error("unterminated cstring");
  return [buffer.toString("utf8", offset, end), end + 1];
}

const DECODE = { promoteLongs: false, promoteValues: true, useBigInt64: false } as const;

function decodeDocument(buffer: Buffer, offset: number): [Document, number] {
  const length = buffer.readInt32LE(offset);
  return [BSON.deserialize(buffer.subarray(offset, offset + length), DECODE), offset + length];
}

export class FakeMongoServer {
  /** Every command received, in arrival order, on every connection (handshakes and heartbeats too). */
  readonly commands: RecordedCommand[] = [];
  /** Opcodes the server could not handle; a test may assert this stays empty. */
  readonly protocolErrors: string[] = [];
  readonly opcounters = { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 };
  private readonly collections = new Map<string, CollectionState>();
  private readonly sockets = new Set<net.Socket>();
  private nextRequestId = 1;
  private nextConnectionId = 1;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private readonly options: FakeMongoServerOptions,
  ) {}

  static async start(options: FakeMongoServerOptions = {}): Promise<FakeMongoServer> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no TCP address");
    const fake = new FakeMongoServer(server, address.port, options);
    server.on("connection", (socket) => fake.accept(socket));
    return fake;
  }

  /** A URI for MongoClient: direct, so the driver treats the fake as a standalone. */
  get uri(): string {
    return `mongodb://127.0.0.1:${this.port}/?directConnection=true`;
  }

  /** Commands with this name (case-insensitive), in arrival order. */
  commandsNamed(name: string): RecordedCommand[] {
    const wanted = name.toLowerCase();
    return this.commands.filter((c) => c.name.toLowerCase() === wanted);
  }

  /** Forgets the recorded commands (not the collections or counters). */
  clearCommands(): void {
    this.commands.length = 0;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    const connectionId = this.nextConnectionId++;
    let pending: Buffer = Buffer.alloc(0);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      // A message may arrive in pieces, or several in one chunk: frame by the length prefix.
      while (pending.length >= 4) {
        const length = pending.readInt32LE(0);
        if (length < 16) {
          this.protocolErrors.push(`invalid message length ${length}`);
          socket.destroy();
          return;
        }
        if (pending.length < length) break;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        try {
          this.handleMessage(socket, message, connectionId);
        } catch (error) {
          this.protocolErrors.push(error instanceof Error ? error.message : String(error));
          socket.destroy();
          return;
        }
      }
    });
  }

  private handleMessage(socket: net.Socket, message: Buffer, connectionId: number): void {
    const requestId = message.readInt32LE(4);
    const opCode = message.readInt32LE(12);
    if (opCode === OP_MSG) {
      const flags = message.readUInt32LE(16);
      // The checksum, when present, is the last four bytes; the driver never sends one.
      const end = flags & CHECKSUM_PRESENT ? message.length - 4 : message.length;
      let offset = 20;
      let body: Document | undefined;
      const sequences: Array<[string, Document[]]> = [];
      while (offset < end) {
        const kind = message.readUInt8(offset++);
        if (kind === 0) {
          [body, offset] = decodeDocument(message, offset);
        } else if (kind === 1) {
          const sectionEnd = offset + message.readInt32LE(offset);
          const [identifier, start] = readCString(message, offset + 4);
          let at = start;
          const documents: Document[] = [];
          while (at < sectionEnd) {
            let document: Document;
            [document, at] = decodeDocument(message, at);
            documents.push(document);
          }
          sequences.push([identifier, documents]);
          offset = sectionEnd;
        } else {
          throw new Error(`OP_MSG section kind ${kind} is not supported`);
        }
      }
      if (!body) throw new Error("OP_MSG without a kind-0 section");
      const command: Document = { ...body };
      for (const [identifier, documents] of sequences) command[identifier] = documents;
      const reply = this.execute(
        {
          name: Object.keys(body)[0] ?? "",
          database: typeof body.$db === "string" ? body.$db : "",
          command,
          opCode: OP_MSG,
          sequences: sequences.map(([identifier]) => identifier),
          flags,
        },
        connectionId,
      );
      // With moreToCome the client expects no answer (unacknowledged writes).
      if (!(flags & MORE_TO_COME)) socket.write(this.opMsgReply(requestId, reply));
    } else if (opCode === OP_QUERY) {
      let offset = 20; // header (16) + flags (4)
      const [collection, afterName] = readCString(message, offset);
      offset = afterName;
      offset += 8; // numberToSkip, numberToReturn
      const [query] = decodeDocument(message, offset);
      // A command sent as OP_QUERY may be wrapped as { $query: command, $readPreference }.
      const command: Document =
        query.$query !== null && typeof query.$query === "object" ? (query.$query as Document) : query;
      const reply = this.execute(
        {
          name: Object.keys(command)[0] ?? "",
          database: collection.replace(/\.\$cmd$/, ""),
          command,
          opCode: OP_QUERY,
          sequences: [],
          flags: 0,
        },
        connectionId,
      );
      socket.write(this.opReply(requestId, reply));
    } else if (opCode === OP_COMPRESSED) {
      // The hello reply advertises no compressors, so a client that compresses is a bug.
      throw new Error("OP_COMPRESSED received, but no compression was negotiated");
    } else {
      throw new Error(`opcode ${opCode} is not supported`);
    }
  }

  private execute(recorded: RecordedCommand, connectionId: number): Document {
    this.commands.push(recorded);
    const name = recorded.name.toLowerCase();
    const custom = this.options.handlers?.[name]?.(recorded.command, this);
    if (custom) return custom;
    return this.defaultReply(name, recorded, connectionId);
  }

  private collection(database: string, name: unknown): CollectionState {
    const ns = `${database}.${String(name)}`;
    let state = this.collections.get(ns);
    if (!state) {
      // Writing to a missing collection creates it, as on a real server.
      state = { documents: 0, indexes: new Set(["_id_"]) };
      this.collections.set(ns, state);
    }
    return state;
  }

  private defaultReply(name: string, recorded: RecordedCommand, connectionId: number): Document {
    const { command, database } = recorded;
    if (name !== "hello" && name !== "ismaster") this.opcounters.command++;
    switch (name) {
      case "hello":
      case "ismaster":
        return ok({
          helloOk: true,
          ismaster: true,
          isWritablePrimary: true,
          // No topologyVersion: the driver then polls with hello instead of streaming (exhaust) replies.
          maxBsonObjectSize: 16 * 1024 * 1024,
          maxMessageSizeBytes: 48_000_000,
          maxWriteBatchSize: 100_000,
          localTime: new Date(),
          // Present, so the driver attaches implicit sessions (lsid) as it would on a real server.
          logicalSessionTimeoutMinutes: 30,
          connectionId,
          minWireVersion: 0,
          maxWireVersion: this.options.maxWireVersion ?? 25,
          readOnly: false,
        });
      case "ping":
      case "endsessions":
      case "killcursors":
        return ok();
      case "buildinfo": {
        const version = this.options.version ?? "8.0.16";
        return ok({
          version,
          versionArray: [...version.split(".").map(Number), 0],
          bits: 64,
          maxBsonObjectSize: 16 * 1024 * 1024,
        });
      }
      case "drop": {
        const ns = `${database}.${String(command.drop)}`;
        const existed = this.collections.get(ns);
        this.collections.delete(ns);
        // MongoDB 7.0+ answers ok for a missing collection too.
        return ok(existed ? { nIndexesWas: existed.indexes.size, ns } : {});
      }
      case "dropdatabase": {
        for (const ns of [...this.collections.keys()]) if (ns.startsWith(`${database}.`)) this.collections.delete(ns);
        return ok({ dropped: database });
      }
      case "create": {
        const ns = `${database}.${String(command.create)}`;
        if (this.collections.has(ns)) return commandError(48, "NamespaceExists", `Collection ${ns} already exists.`);
        this.collection(database, command.create);
        return ok();
      }
      case "createindexes": {
        const state = this.collection(database, command.createIndexes);
        const before = state.indexes.size;
        const indexes = Array.isArray(command.indexes) ? (command.indexes as Document[]) : [];
        for (const index of indexes) state.indexes.add(String(index.name));
        return ok({
          numIndexesBefore: before,
          numIndexesAfter: state.indexes.size,
          createdCollectionAutomatically: false,
        });
      }
      case "insert": {
        const documents = Array.isArray(command.documents) ? command.documents.length : 0;
        this.collection(database, command.insert).documents += documents;
        this.opcounters.insert += documents;
        return ok({ n: documents });
      }
      case "update": {
        const updates = Array.isArray(command.updates) ? command.updates.length : 0;
        this.opcounters.update += updates;
        // Every statement matches one document and changes it: the fake keeps no data.
        return ok({ n: updates, nModified: updates });
      }
      case "delete": {
        const deletes = Array.isArray(command.deletes) ? command.deletes.length : 0;
        this.opcounters.delete += deletes;
        return ok({ n: deletes });
      }
      case "serverstatus":
        return ok(this.serverStatus());
      case "collstats":
        return ok({
          ns: `${database}.${String(command.collStats)}`,
          ...this.storageStats(database, command.collStats),
        });
      case "aggregate": {
        const pipeline = Array.isArray(command.pipeline) ? (command.pipeline as Document[]) : [];
        const ns = `${database}.${String(command.aggregate)}`;
        const firstBatch = pipeline[0]?.$collStats
          ? [
              {
                ns,
                host: `127.0.0.1:${this.port}`,
                localTime: new Date(),
                storageStats: this.storageStats(database, command.aggregate),
              },
            ]
          : [];
        return ok({ cursor: { firstBatch, id: Long.ZERO, ns } });
      }
      default:
        return commandError(59, "CommandNotFound", `no such command: '${recorded.name}'`);
    }
  }

  /** Sizes made up from the document count: 100 B per document, 20 B per index entry, one 4 KiB page minimum. */
  storageStats(database: string, collection: unknown): Document {
    const state = this.collection(database, collection);
    const indexSizes: Record<string, number> = {};
    for (const index of state.indexes) indexSizes[index] = 4096 + state.documents * 20;
    const totalIndexSize = Object.values(indexSizes).reduce((a: number, b: number) => a + b, 0);
    return {
      size: state.documents * 100,
      count: state.documents,
      storageSize: 4096 + state.documents * 50,
      nindexes: state.indexes.size,
      totalIndexSize,
      indexSizes,
    };
  }

  private serverStatus(): Document {
    // Counters grow with the writes seen, so a test can check before/after deltas; int64 values as
    // Long, as mongod reports them.
    const inserted = this.opcounters.insert;
    const updated = this.opcounters.update;
    return {
      host: `127.0.0.1:${this.port}`,
      version: this.options.version ?? "8.0.16",
      process: "mongod",
      uptime: new Double(1),
      opcounters: Object.fromEntries(Object.entries(this.opcounters).map(([k, v]) => [k, Long.fromNumber(v)])),
      wiredTiger: {
        cache: {
          "bytes written from cache": Long.fromNumber(inserted * 100 + updated * 100),
          "pages written from cache": Long.fromNumber(Math.ceil((inserted + updated) / 40)),
          "bytes read into cache": Long.fromNumber(0),
          "pages read into cache": Long.fromNumber(0),
          "tracked dirty bytes in the cache": Long.fromNumber(updated * 10),
          "bytes currently in the cache": Long.fromNumber(inserted * 100),
        },
        log: {
          "log bytes written": Long.fromNumber((inserted + updated) * 120),
          "log sync operations": Long.fromNumber(0),
        },
        transaction: { "transactions committed": Long.fromNumber(inserted + updated) },
      },
    };
  }

  private opMsgReply(responseTo: number, reply: Document): Buffer {
    const body = BSON.serialize(reply);
    const header = Buffer.alloc(21);
    header.writeInt32LE(21 + body.length, 0);
    header.writeInt32LE(this.nextRequestId++, 4);
    header.writeInt32LE(responseTo, 8);
    header.writeInt32LE(OP_MSG, 12);
    header.writeUInt32LE(0, 16); // flags
    header.writeUInt8(0, 20); // section kind 0
    return Buffer.concat([header, body]);
  }

  private opReply(responseTo: number, reply: Document): Buffer {
    const body = BSON.serialize(reply);
    const header = Buffer.alloc(36);
    header.writeInt32LE(36 + body.length, 0);
    header.writeInt32LE(this.nextRequestId++, 4);
    header.writeInt32LE(responseTo, 8);
    header.writeInt32LE(OP_REPLY, 12);
    header.writeInt32LE(0, 16); // responseFlags
    header.writeBigInt64LE(0n, 20); // cursorID
    header.writeInt32LE(0, 28); // startingFrom
    header.writeInt32LE(1, 32); // numberReturned
    return Buffer.concat([header, body]);
  }
}
