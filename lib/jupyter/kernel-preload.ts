/**
 * Preloaded into the tslab kernel (`node -r`, see kernel-spec.ts): one send at a time on each ZeroMQ
 * socket, stream output coalesced, no file watching in the type checker. Why, and what was measured
 * without them: docs/kernel.md, "What the kernel preload fixes".
 */
import fs from "node:fs";
import path from "node:path";
import * as zmq from "zeromq";

type SendFn = (this: object, message: unknown) => Promise<void>;

const tails = new WeakMap<object, Promise<void>>();

function queued(original: SendFn): SendFn {
  return function queuedSend(this: object, message: unknown): Promise<void> {
    const previous = tails.get(this) ?? Promise.resolve();
    // tslab drops the promise: a failed send must not become an unhandled rejection, whose print would send again.
    const sent = previous.then(() => original.call(this, message)).catch(() => undefined);
    tails.set(this, sent);
    return sent;
  };
}

// Socket.prototype.send is a read-only native property: each socket class gets its own, defined.
const base = (zmq.Socket.prototype as unknown as { send?: SendFn }).send;
for (const name of [
  "Publisher",
  "Router",
  "Dealer",
  "XPublisher",
  "Stream",
  "Pair",
  "Push",
  "Request",
  "Reply",
] as const) {
  const proto = (zmq as unknown as Record<string, { prototype: object } | undefined>)[name]?.prototype;
  if (!base || !proto || Object.prototype.hasOwnProperty.call(proto, "send")) continue;
  Object.defineProperty(proto, "send", { value: queued(base), writable: true, configurable: true });
}

/** No high-water mark on iopub, which would drop unread messages at 1000. */
const Publisher = zmq.Publisher;
class UnboundedPublisher extends Publisher {
  constructor(...args: ConstructorParameters<typeof Publisher>) {
    super(...args);
    this.sendHighWaterMark = 0;
  }
}
Object.defineProperty(zmq, "Publisher", {
  value: UnboundedPublisher,
  writable: true,
  configurable: true,
  enumerable: true,
});

/** Stream writes joined per cell and sent every STREAM_INTERVAL_MS (or at 64 KiB), in order, as ipykernel does. */
const STREAM_INTERVAL_MS = 50;
type WriteStream = (name: string, text: string) => void;
type WriteDisplayData = (data: unknown, update: boolean) => void;
interface HandlerPrototype {
  handleExecuteImpl?: (
    this: unknown,
    req: unknown,
    writeStream: WriteStream,
    writeDisplayData: WriteDisplayData,
  ) => Promise<unknown>;
}

function coalesceStreams(): void {
  let jupyter: { JupyterHandlerImpl?: { prototype: HandlerPrototype } };
  try {
    jupyter = require("tslab/dist/jupyter") as typeof jupyter;
  } catch {
    return;
  }
  const proto = jupyter.JupyterHandlerImpl?.prototype;
  const original = proto?.handleExecuteImpl;
  if (!proto || !original) return;
  proto.handleExecuteImpl = async function coalescedExecute(this: unknown, req, writeStream, writeDisplayData) {
    const buffered = new Map<string, string>();
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const flush = (): void => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      size = 0;
      const parts = [...buffered];
      buffered.clear();
      for (const [name, text] of parts) writeStream(name, text);
    };
    const write: WriteStream = (name, text) => {
      buffered.set(name, (buffered.get(name) ?? "") + text);
      size += text.length;
      if (size >= 64 * 1024) flush();
      else timer ??= setTimeout(flush, STREAM_INTERVAL_MS);
    };
    const display: WriteDisplayData = (data, update) => {
      flush();
      writeDisplayData(data, update);
    };
    try {
      return await original.call(this, req, write, display);
    } finally {
      flush();
    }
  };
}
coalesceStreams();

interface ZmqServerPrototype {
  connInfo?: { transport?: string; ip?: string };
  bindSocket?: (this: ZmqServerPrototype, sock: { bind(addr: string): Promise<void> }, port: number) => Promise<void>;
  init?: (this: ZmqServerPrototype) => Promise<void>;
}

/**
 * tslab logs a failed bind as an unhandled rejection and lives on without answering, so a port taken
 * between Jupyter's choice and the kernel's bind cost 120 s of "Kernel didn't respond": end the
 * process with the reason instead (the client then says the kernel died, at once). An ipc transport
 * (the headless runner's) is addressed `ipc://<ip>-<port>` as jupyter_client writes it; tslab would
 * join with ":".
 */
function listenOrExit(): void {
  let jupyter: { ZmqServer?: { prototype: ZmqServerPrototype } };
  try {
    jupyter = require("tslab/dist/jupyter") as typeof jupyter;
  } catch {
    return;
  }
  const proto = jupyter.ZmqServer?.prototype;
  const init = proto?.init;
  if (!proto || !init) return;
  const bindSocket = proto.bindSocket;
  proto.bindSocket = async function bindByTransport(sock, port) {
    const conn = this.connInfo;
    if (conn?.transport === "ipc") return sock.bind(`ipc://${conn.ip}-${port}`);
    return bindSocket?.call(this, sock, port);
  };
  proto.init = async function initOrExit() {
    try {
      await init.call(this);
    } catch (err) {
      const conn = this.connInfo;
      console.error(
        `db-write-lab kernel: cannot listen on its ${conn?.transport ?? "?"} sockets at ${conn?.ip ?? "?"}: ${String(err)}`,
      );
      process.exit(1);
    }
  };
}
listenOrExit();

/**
 * The kernel ends with the process that started it (ipykernel's parent poller does the same; tslab has
 * none): a kernel whose executor or Notebook server was killed would otherwise run on, orphaned,
 * holding the servers its run started. SIGTERM, so that the lab's shutdown hooks release them.
 */
function endWithParent(): void {
  const parent = process.ppid;
  const poll = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(poll);
    process.kill(process.pid, "SIGTERM");
  }, 1000);
  poll.unref();
}
endWithParent();

/** tslab's type checker sees the kernel's NODE_PATH, as Node does (docs/kernel.md). */
interface TsSys {
  fileExists: (p: string) => boolean;
  directoryExists: (p: string) => boolean;
  readFile: (p: string, encoding?: string) => string | undefined;
  realpath?: (p: string) => string;
  watchFile?: (...args: unknown[]) => { close(): void };
  watchDirectory?: (...args: unknown[]) => { close(): void };
}

function tslabSys(): TsSys | undefined {
  try {
    return (require("@tslab/typescript-for-tslab") as { sys?: TsSys }).sys;
  } catch {
    return undefined;
  }
}

function typeCheckWithNodePath(): void {
  const folders = (process.env.NODE_PATH ?? "").split(path.delimiter).filter((f) => f !== "");
  if (folders.length === 0) return;
  const sys = tslabSys();
  if (!sys) return;
  const slash = (p: string): string => p.split(path.sep).join("/");
  const prefix = slash(path.join(process.cwd(), "node_modules")) + "/";
  const original = { fileExists: sys.fileExists, directoryExists: sys.directoryExists, readFile: sys.readFile };
  const forward = (p: string): string => {
    if (!p.startsWith(prefix) || fs.existsSync(p)) return p;
    const rest = p.slice(prefix.length);
    for (const folder of folders) {
      const candidate = slash(path.join(folder, rest));
      if (fs.existsSync(candidate)) return candidate;
    }
    return p;
  };
  sys.fileExists = (p) => original.fileExists.call(sys, forward(p));
  sys.directoryExists = (p) => original.directoryExists.call(sys, forward(p));
  sys.readFile = (p, encoding) => original.readFile.call(sys, forward(p), encoding);
  const realpath = sys.realpath;
  if (realpath) sys.realpath = (p) => realpath.call(sys, forward(p));
}
typeCheckWithNodePath();

/** No file watching in tslab's type checker: a second pending rebuild would end the running cell (docs/kernel.md). */
function noFileWatching(): void {
  const sys = tslabSys();
  if (!sys) return;
  const unwatched = { close: (): void => undefined };
  if (sys.watchFile) sys.watchFile = () => unwatched;
  if (sys.watchDirectory) sys.watchDirectory = () => unwatched;
}
noFileWatching();
