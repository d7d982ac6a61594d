/**
 * Preloaded into the tslab kernel (`node -r`, see kernel-spec.ts): one send at a time on each
 * ZeroMQ socket, in order.
 *
 * tslab 1.0.22 (the latest) sends every message with `sock.send(...)` and never awaits it, but
 * zeromq 6 allows one send in flight per socket: a burst of output throws "Socket is busy writing;
 * only one send operation may be in progress at any time" synchronously, from inside the cell's
 * own `display.html()` or `process.stderr.write()`. Measured here with a plain Publisher: 5000
 * unawaited sends, 513 sent, 4487 thrown. In a notebook a cell writing 20000 stderr lines, or
 * updating a display 20000 times, was reported failed (tslab's own error print throws the same way,
 * so "failed" came with no message) and the later cells never ran; a slow reader after a large
 * output (04's charts on `full`) makes the next cell's one output the thrown one: the known problem
 * "last cell of 04 full failed with no message, an earlier cell lost its output".
 *
 * Written here because tslab is unmaintained and the fix is a queue of a few lines; it patches the
 * prototype of the one zeromq module tslab itself loads (resolved from this project).
 */
import fs from "node:fs";
import path from "node:path";
import * as zmq from "zeromq";

type SendFn = (this: object, message: unknown) => Promise<void>;

const tails = new WeakMap<object, Promise<void>>();

function queued(original: SendFn): SendFn {
  return function queuedSend(this: object, message: unknown): Promise<void> {
    const previous = tails.get(this) ?? Promise.resolve();
    // tslab drops the promise: a failed send (socket closed at shutdown) must not become an
    // unhandled rejection, which tslab prints, which sends again. So the promise never rejects, and
    // silently: not ignored() from lib/runtime/debug, whose DBLAB_DEBUG line goes to the kernel's
    // stderr, which tslab forwards with another send on the same closed socket.
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

/**
 * No high-water mark on the kernel's publisher (iopub): at the default 1000 queued messages a PUB
 * socket drops what the reader has not taken yet. Measured: of a cell's 20000 stderr writes, 7488
 * reached the notebook with the mark, 9295 without it; the rest is dropped by the reader's own SUB
 * socket (Jupyter's side, RCVHWM 1000), which only fewer, larger messages would avoid (ipykernel
 * batches its streams; tslab sends each write). Cells no longer fail on a burst either way.
 */
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

/**
 * Stream output coalesced per cell: tslab sends every `process.stdout/stderr.write` as its own
 * message, and Jupyter's iopub reader drops what exceeds its 1000-message queue; measured, a cell
 * writing 2000 stderr lines in one go made the next cell lose its output. Writes are joined and
 * sent every STREAM_INTERVAL_MS (or at 64 KiB), before any display output (order kept) and when
 * the cell ends (before its reply), as ipykernel does with its streams.
 */
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
    return; // not tslab 1.x's layout: leave it alone
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

/**
 * tslab's type checker sees the kernel's NODE_PATH, as Node does at run time: without this,
 * `import * as lab from "db-write-lab"` in a notebook outside the project runs (Node reads NODE_PATH,
 * set by kernel-spec.ts) but is refused first with "Cannot find module 'db-write-lab'", because
 * tslab's TypeScript (Node10 resolution) only looks in node_modules folders above the notebook.
 *
 * tslab answers `import "tslab"` from any folder the same way (converter.js `forwardTslabPath`): it
 * pretends `<cwd>/node_modules` exists and maps reads under `<cwd>/node_modules/tslab` to itself.
 * Here a path under `<cwd>/node_modules/` that does not exist is read from the first NODE_PATH folder
 * that has it, so a real node_modules beside the notebook still wins, as it does for Node.
 */
interface TsSys {
  fileExists: (p: string) => boolean;
  directoryExists: (p: string) => boolean;
  readFile: (p: string, encoding?: string) => string | undefined;
  realpath?: (p: string) => string;
  watchFile?: (...args: unknown[]) => { close(): void };
  watchDirectory?: (...args: unknown[]) => { close(): void };
}

/** The `sys` of the TypeScript tslab 1.x type-checks with; undefined for another layout (left alone). */
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
  // TypeScript's paths use "/" on every platform.
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
  // The forwarded file's own imports then resolve from where it really is (the project).
  if (realpath) sys.realpath = (p) => realpath.call(sys, forward(p));
}
typeCheckWithNodePath();

/**
 * No file watching in tslab's type checker. tslab keeps one pending rebuild and throws "Unexpected
 * pending rebuildTimer" when TypeScript's watchers schedule a second kind (a source changed, then a
 * package.json or a type root) before the next cell: an uncaught exception that ends the running
 * cell. Measured: a 03 run at `full` ended in its load, 5 min in, when the project's node_modules was
 * hard-linked elsewhere (each file's ctime changed); `npm ci` beside a run does the same (the
 * integration test files-change). A kernel runs the lab's code as it was when it started (Node caches
 * modules), so a type checker that saw later files would only disagree with it; each cell still reads
 * the files it has not read before, and a kernel restart sees everything anew.
 */
function noFileWatching(): void {
  const sys = tslabSys();
  if (!sys) return;
  const unwatched = { close: (): void => undefined };
  if (sys.watchFile) sys.watchFile = () => unwatched;
  if (sys.watchDirectory) sys.watchDirectory = () => unwatched;
}
noFileWatching();
