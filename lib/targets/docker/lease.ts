/**
 * A lease on a container on a remote engine: an sh watcher around the image's entrypoint stops it
 * once the lab stops rewriting its lease file, so a vanished client leaves nothing behind for longer
 * than the bound. Why a live client never loses its server, and why 120 s: docs/targets.md.
 */
import { Readable } from "node:stream";
import { extract as tarExtract, pack as tarPack } from "tar-stream";
import type Docker from "dockerode";
import { ignored } from "../../runtime/debug";
import { withTimeout } from "../../runtime/timeout";

export const DEFAULT_LEASE_SECONDS = 120;
export const LEASE_DIR = "/tmp";
export const LEASE_NAME = "db-write-lab.lease";
export const LEASE_EXIT_NAME = `${LEASE_NAME}.exit`;

export interface LeaseTiming {
  /** The lab holds its server this long after its last successful renewal. */
  readonly boundSeconds: number;
  /** A quarter of the bound (1 to 15 s), so several go out within a bound. */
  readonly requestTimeoutMs: number;
  /** The watcher's bound: the client's bound plus the longest a request may take. */
  readonly watcherBoundSeconds: number;
  readonly tickSeconds: number;
  readonly graceSeconds: number;
  readonly renewMs: number;
}

/** The timing for a bound; whole seconds for the watcher, since not every image's `sleep` takes fractions. */
export function leaseTiming(boundSeconds: number): LeaseTiming {
  const bound = Math.max(1, Math.ceil(boundSeconds));
  const requestTimeoutMs = Math.max(1000, Math.min(15_000, bound * 250));
  return {
    boundSeconds: bound,
    requestTimeoutMs,
    watcherBoundSeconds: bound + Math.ceil(requestTimeoutMs / 1000),
    tickSeconds: Math.min(5, Math.max(1, Math.floor(bound / 24))),
    graceSeconds: Math.min(10, bound),
    renewMs: Math.max(500, Math.min(10_000, Math.round((bound * 1000) / 12))),
  };
}

/** Engine removal not counted. */
export function leaseWorstCaseSeconds(t: LeaseTiming): number {
  return t.watcherBoundSeconds + t.tickSeconds + t.graceSeconds;
}

export function leaseSecondsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DBLAB_LEASE_SECONDS;
  if (raw === undefined || raw === "") return DEFAULT_LEASE_SECONDS;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 1) {
    throw new Error(`DBLAB_LEASE_SECONDS must be a number of seconds ≥ 1, got "${raw}"`);
  }
  return seconds;
}

/**
 * The watcher (`sh -c LEASE_SCRIPT db-write-lab-lease BOUND TICK GRACE SIGNAL FILE ENTRYPOINT…`), PID 1
 * with the entrypoint as its child, so it can SIGKILL the child and outlive its exit. A ticker's
 * SIGUSR1 every TICK makes `wait` return to look at the lease.
 */
export const LEASE_SCRIPT = [
  "bound=$1 tick=$2 grace=$3 sig=$4 lease=$5; shift 5",
  'say() { printf "db-write-lab lease: %s\\n" "$*" >&2; }',
  'read_lease() { seen=; [ -r "$lease" ] && read -r seen < "$lease" || :; }',
  "stopping= expired= quiet=0 killed_at= ticked=",
  'forward() { stopping=1; [ -z "$child" ] || kill -"$1" "$child" 2>/dev/null || :; }',
  "trap 'forward TERM' TERM; trap 'forward INT' INT; trap 'forward QUIT' QUIT; trap 'forward HUP' HUP",
  "trap 'ticked=1' USR1",
  "read_lease; last=$seen",
  "child=",
  '"$@" &',
  "child=$!",
  "watcher=$$",
  '( while sleep "$tick"; do kill -USR1 "$watcher" 2>/dev/null || exit 0; done ) &',
  "ticker=$!",
  "look() {",
  '  [ -n "$ticked" ] || return 0',
  "  ticked=",
  "  read_lease",
  '  if [ "$seen" != "$last" ]; then last=$seen; quiet=0; else quiet=$((quiet + tick)); fi',
  "}",
  "code=0",
  "while :; do",
  '  wait "$child"; code=$?',
  // A wait cut short by SIGUSR1 returns 138 even when the child exited at that moment: asked again,
  // wait gives the child's own status, or 127 when the first wait already reported it.
  '  if ! kill -0 "$child" 2>/dev/null; then wait "$child" 2>/dev/null; again=$?; [ "$again" = 127 ] || code=$again; break; fi',
  "  look",
  '  if [ -z "$expired" ] && [ "$quiet" -ge "$bound" ]; then',
  "    expired=1; killed_at=$quiet",
  '    say "not renewed for ${quiet} s (bound ${bound} s): the lab that held this container is gone; stopping the server (SIG${sig})"',
  '    kill -"$sig" "$child" 2>/dev/null || :',
  '  elif [ -n "$expired" ] && [ $((quiet - killed_at)) -ge "$grace" ]; then',
  '    say "the server did not stop within ${grace} s: SIGKILL"',
  '    kill -KILL "$child" 2>/dev/null || :',
  "  fi",
  "done",
  'if [ -z "$stopping" ] && [ -z "$expired" ]; then',
  '  printf "%s\\n" "$code" > "$lease.exit" 2>/dev/null || :',
  '  say "the server exited with code $code; the container stays until the lab removes it or the lease lapses"',
  '  while [ -z "$stopping" ] && [ "$quiet" -lt "$bound" ]; do',
  '    wait "$ticker" 2>/dev/null || :',
  '    kill -0 "$ticker" 2>/dev/null || break',
  "    look",
  "  done",
  "fi",
  'kill "$ticker" 2>/dev/null || :',
  'exit "$code"',
].join("\n");

export function leasedEntrypoint(
  imageEntrypoint: readonly string[] | string | null | undefined,
  timing: LeaseTiming,
  stopSignal: string | undefined,
): string[] {
  const own = imageEntrypoint === null || imageEntrypoint === undefined ? [] : [imageEntrypoint].flat();
  const signal = (stopSignal ?? "SIGTERM").replace(/^SIG/, "");
  if (!/^[A-Z0-9]+$/.test(signal)) throw new Error(`lease: cannot use stop signal "${stopSignal}"`);
  return [
    "/bin/sh",
    "-c",
    LEASE_SCRIPT,
    "db-write-lab-lease",
    String(timing.watcherBoundSeconds),
    String(timing.tickSeconds),
    String(timing.graceSeconds),
    signal,
    `${LEASE_DIR}/${LEASE_NAME}`,
    ...own,
  ];
}

export async function leasedCreateOptions(
  docker: Docker,
  image: string,
  timing: LeaseTiming,
): Promise<{ Entrypoint: string[]; AutoRemove: true }> {
  const info = await docker.getImage(image).inspect();
  const config = info.Config as { Entrypoint?: string[] | string | null; StopSignal?: string };
  return { Entrypoint: leasedEntrypoint(config.Entrypoint, timing, config.StopSignal), AutoRemove: true };
}

function leaseTar(sequence: number): Readable {
  const pack = tarPack();
  pack.entry({ name: LEASE_NAME, mode: 0o644, mtime: new Date() }, `${sequence}\n`);
  pack.finalize();
  return Readable.from(pack);
}

/** A restart refused because the container is gone or being removed (404, or 500 "marked for removal"). */
export function goneOnRestart(error: unknown): boolean {
  const status = (error as { statusCode?: number } | null)?.statusCode;
  return status === 404 || (status === 500 && /marked for removal/i.test(String(error)));
}

export type LeasedContainer = Pick<Docker.Container, "id" | "putArchive">;

/**
 * Renews the lease on an unref'd timer, each renewal independent and aborted after requestTimeoutMs; failures are
 * recorded in `lastFailure`, never thrown.
 */
export class LeaseRenewer {
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<AbortController>();
  /** Epoch ms: moves only forwards, and only on success. */
  lastSuccessAt: number;
  lastFailure: Error | undefined;

  /** `armedAt`: a time before the container started. */
  constructor(
    private readonly container: LeasedContainer,
    readonly timing: LeaseTiming,
    armedAt: number = Date.now(),
  ) {
    this.lastSuccessAt = armedAt;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.renew(), this.timing.renewMs);
    this.timer.unref();
    void this.renew();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const abort of this.inFlight) abort.abort();
    this.inFlight.clear();
  }

  get pending(): number {
    return this.inFlight.size;
  }

  /** The container was restarted by a request sent at `requestedAt`: as good as a renewal answered then. */
  rearmed(requestedAt: number): void {
    this.lastSuccessAt = Math.max(this.lastSuccessAt, requestedAt);
  }

  async renew(): Promise<void> {
    const abort = new AbortController();
    this.inFlight.add(abort);
    const seconds = this.timing.requestTimeoutMs / 1000;
    try {
      await withTimeout(
        this.container.putArchive(leaseTar(++this.sequence), { path: LEASE_DIR, abortSignal: abort.signal }),
        this.timing.requestTimeoutMs,
        `no answer within ${seconds} s`,
      );
      this.lastSuccessAt = Math.max(this.lastSuccessAt, Date.now());
      this.lastFailure = undefined;
    } catch (error) {
      this.lastFailure = new Error(`renewing the lease on container ${this.container.id.slice(0, 12)} failed`, {
        cause: error,
      });
      ignored("docker: renew a container's lease (the next renewal goes out on time regardless)")(this.lastFailure);
    } finally {
      // Aborted on timeout, so it neither lands late nor holds its connection.
      abort.abort();
      this.inFlight.delete(abort);
    }
  }

  /** Why a leased container is gone: the lease is named only when it had lapsed (AutoRemove removes it on any stop). */
  describeGone(): string {
    const ago = Math.round((Date.now() - this.lastSuccessAt) / 1000);
    const bound = this.timing.boundSeconds;
    const failure = this.lastFailure ? `; the last renewal failed: ${String(this.lastFailure.cause)}` : "";
    return ago >= bound
      ? `its lease was last renewed ${ago} s ago, past its bound of ${bound} s (DBLAB_LEASE_SECONDS), so it ` +
          `stopped its server and its engine removed it${failure}`
      : `its engine removed it when it stopped (AutoRemove; its lease was renewed ${ago} s ago, within its ` +
          `bound of ${bound} s)${failure}`;
  }
}

/** The server's exit code when it exited on its own in a leased container, else undefined. */
export async function leasedExitCode(container: Docker.Container, timeoutMs = 5000): Promise<number | undefined> {
  let stream: NodeJS.ReadableStream;
  try {
    stream = await withTimeout(
      container.getArchive({ path: `${LEASE_DIR}/${LEASE_EXIT_NAME}` }),
      timeoutMs,
      `no answer within ${timeoutMs} ms`,
    );
  } catch (error) {
    // 404: no such file, the server still runs.
    if ((error as { statusCode?: number }).statusCode !== 404) ignored("docker: read a leased container's exit")(error);
    return undefined;
  }
  const text = await new Promise<string>((resolve, reject) => {
    const extract = tarExtract();
    let body = "";
    extract.on("entry", (_header, entry, next) => {
      entry.on("data", (c: unknown) => (body += Buffer.isBuffer(c) ? c.toString("utf8") : String(c)));
      entry.on("end", next);
      entry.resume();
    });
    extract.on("finish", () => resolve(body));
    extract.on("error", reject);
    stream.pipe(extract);
  }).catch((error: unknown) => {
    ignored("docker: read a leased container's exit")(error);
    return "";
  });
  const code = Number.parseInt(text.trim(), 10);
  return Number.isFinite(code) ? code : undefined;
}
