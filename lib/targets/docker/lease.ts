/**
 * A lease on a container on a remote engine: the container ends itself when the lab stops renewing
 * it, so a client that vanished (SIGKILL, a laptop that went away, a kernel killed by the OOM
 * killer) leaves nothing on the engine for longer than the bound, even when nobody runs the lab
 * there again. Measured before: after a lost link, a 04 container was still up 56 s after the link
 * came back, and only `npm run clean` or a resume removed it.
 *
 * How: the container's entrypoint is wrapped by a POSIX sh watcher (LEASE_SCRIPT; the stand-in and
 * the official images all have /bin/sh) that runs the image's own entrypoint as its child and, on
 * its own clock, reads a lease file inside the container. The lab renews it by writing the next
 * number into it with the Docker API's archive upload (putArchive: one small HTTP request over the
 * engine's existing SSH connection, no process started in the container, so nothing counts
 * against the server's CPU limit as a `docker exec touch` would). The watcher compares contents,
 * not mtimes, so the clocks of the client and the engine's host never meet. A lease unchanged for
 * the watcher's bound stops the server (the image's stop signal, SIGKILL after a grace), the watcher exits,
 * and the container, created with AutoRemove, is removed by its engine.
 *
 * When the server exits on its own (a crash, a bad setting), the watcher keeps the container up
 * with its exit code in a file, until the lab removes it or the lease lapses: AutoRemove would
 * otherwise remove the exit code and the log lines the lab's messages quote (waitReady's log tail,
 * processGone's exit code).
 *
 * Why a live client never loses its server (the promise: a container is never stopped within
 * `boundSeconds` of the lab's last successful renewal, whatever the bound, the link's latency or a
 * restart):
 * - Renewals are independent: one goes out every renewMs whatever became of the previous ones, each
 *   with its own timeout (requestTimeoutMs), after which its request is aborted. A hung request
 *   never delays the next one (it used to: one renewal at a time, so one hung request cost a
 *   request timeout of renewals, and a few in a row a live run its server).
 * - The watcher's bound is the client's bound plus the longest a request may take
 *   (watcherBoundSeconds = boundSeconds + requestTimeoutMs rounded up). A renewal answered at A
 *   was sent at S ≥ A − requestTimeout and landed at W ≥ S; the watcher counts from the look that
 *   saw it (≥ W), by whole ticks, so it stops the server no earlier than
 *   W + boundSeconds + requestTimeout ≥ A + boundSeconds. Renewals landing out of order are still
 *   changes: the watcher compares contents, never their order or age.
 * - A restart re-arms the lease before the container starts: the new watcher counts from its own
 *   start, taking whatever the file holds then as its starting point, so a stale lease (the last
 *   renewal behind a hung request, or one landing in the middle of the restart) cannot count
 *   against it; the restart request's own time is, for the lab, as good as a renewal (rearmed()).
 *   Docker's restart keeps an AutoRemove container (a stop then a start would remove it), so the
 *   fresh start is the re-arming, not a write between the stop and the start.
 *
 * The bound (DEFAULT_LEASE_SECONDS, DBLAB_LEASE_SECONDS overrides it) is 120 s: twice the stall
 * watchdog's floor (60 s, lib/workloads/watchdog.ts) and well over what a lost ssh:// link takes to
 * be reported (the fault matrix's ssh:// cells end in about 47 s; ssh-docker-host.ts drops a link after
 * 20 s of unanswered keepalives). So a run that is alive but briefly cut off from its engine gets
 * the watchdog's engine-loss error, not a server that vanished under it.
 */
import { Readable } from "node:stream";
import { extract as tarExtract, pack as tarPack } from "tar-stream";
import type Docker from "dockerode";
import { ignored } from "../../runtime/debug";
import { withTimeout } from "../../runtime/timeout";

export const DEFAULT_LEASE_SECONDS = 120;
/** The lease file and, next to it, the server's exit code when it exited on its own. */
export const LEASE_DIR = "/tmp";
export const LEASE_NAME = "db-write-lab.lease";
export const LEASE_EXIT_NAME = `${LEASE_NAME}.exit`;

export interface LeaseTiming {
  /**
   * The client's bound: the lab holds its server for this long after its last successful renewal
   * (DBLAB_LEASE_SECONDS), and no longer once it stopped renewing (plus the watcher's grace).
   */
  readonly boundSeconds: number;
  /**
   * How long one renewal's request may take before it counts as failed and is aborted: a quarter
   * of the bound (1 to 15 s), so that several renewals go out within a bound even when one hangs.
   */
  readonly requestTimeoutMs: number;
  /**
   * What the watcher enforces: a lease unchanged for this long (on the watcher's clock) stops the
   * server. The client's bound plus the longest a request may take (the module comment says why).
   */
  readonly watcherBoundSeconds: number;
  /** How often the watcher reads the lease. */
  readonly tickSeconds: number;
  /** How long the server has, after the stop signal, before SIGKILL. */
  readonly graceSeconds: number;
  /** How often the lab renews it. */
  readonly renewMs: number;
}

/**
 * The timing for a bound: renewals every bound/12 (10 s at 120 s), at least 0.5 s, each request
 * given bound/4 (1 to 15 s); the watcher's bound is the bound plus that request timeout rounded up
 * to whole seconds; it looks every bound/24 (5 s at 120 s), 1 to 5 s; 10 s of grace for a fast
 * shutdown (at most the bound). Whole seconds for the watcher: `sleep` takes fractions in neither
 * busybox's nor every Debian image's shell for sure.
 */
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

/**
 * The longest a container can outlive the last renewal that reached it: the watcher's bound, one
 * look of the watcher, the grace and the engine's removal (a few seconds at most; not counted here).
 */
export function leaseWorstCaseSeconds(t: LeaseTiming): number {
  return t.watcherBoundSeconds + t.tickSeconds + t.graceSeconds;
}

/** The bound from DBLAB_LEASE_SECONDS (the tests use a few seconds); a bad value is refused. */
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
 * The watcher, run as `sh -c LEASE_SCRIPT db-write-lab-lease BOUND TICK GRACE SIGNAL FILE
 * ENTRYPOINT…` (BOUND: the timing's watcherBoundSeconds). It counts from its own start: whatever
 * the file holds then is its starting point, so a restarted container starts with a full bound.
 * It is the container's PID 1: the image's entrypoint is its child, so that it can be sent SIGKILL
 * (PID 1 cannot, from inside its namespace) and so that the watcher outlives a server that exited
 * on its own. Signals Docker sends PID 1 (docker stop, restart) go on to the
 * child; the watcher then exits with the child's code, as the image's own entrypoint would have.
 * A ticker child sends the watcher SIGUSR1 every TICK seconds, so that `wait` (the only way a
 * shell learns of a child's exit) also returns to look at the lease. `kill -0` after `wait` tells
 * a child reaped (gone: its code is what wait returned) from a wait cut short by a signal.
 * The child's SIGINT/SIGQUIT start ignored (POSIX, for `&` without job control); postgres and
 * mongod set their own handlers, so the image's stop signal (SIGINT for postgres) still works.
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
  // A wait cut short by the ticker's SIGUSR1 returns 138 even when the child exited at that
  // moment and the shell reaped it: asked again, wait gives the child's own status, or 127 when
  // the first wait had already reported it. Measured under busybox sh (the server exiting on the
  // tick, as a `sleep 1` loop started with the ticker does): 1 in 30 stops exited 138, not 4.
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

/** The container's Entrypoint: the watcher, then the image's own entrypoint (the Cmd follows it). */
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

/** The Entrypoint and AutoRemove of a leased container of `image` (its own entrypoint and stop signal read from it). */
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

/**
 * Whether Docker refused a restart because the container is gone or being removed: a leased
 * container (AutoRemove) that stopped before the restart reached it. Docker answers 404, or 500
 * with "container is marked for removal and cannot be started" (seen in a CI run).
 */
export function goneOnRestart(error: unknown): boolean {
  const status = (error as { statusCode?: number } | null)?.statusCode;
  return status === 404 || (status === 500 && /marked for removal/i.test(String(error)));
}

/** What the renewer needs of a container: its id (for messages) and the archive upload. */
export type LeasedContainer = Pick<Docker.Container, "id" | "putArchive">;

/**
 * The lab's side: renews the lease on a timer (unref'd: it never keeps a script alive) while it
 * holds the container. Each renewal is a request of its own, sent on time whatever became of the
 * previous ones and aborted after requestTimeoutMs (so at most requestTimeoutMs / renewMs + 1 are
 * in flight at once: four at most, whatever the bound). A failed renewal is recorded, never
 * thrown: the run goes on, and the watchdog tells an engine's loss; `lastFailure` keeps the error
 * (with its cause) for messages.
 */
export class LeaseRenewer {
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<AbortController>();
  /**
   * When the lease was last known good (ms since the epoch): the answer to the last successful
   * renewal, or a (re)start of the container, whichever is later. The container is not stopped
   * within boundSeconds of it. Moves only forwards, and only on success.
   */
  lastSuccessAt: number;
  lastFailure: Error | undefined;

  /**
   * `armedAt`: a time before the container (and so its watcher) was started, e.g. taken just
   * before the start request; the watcher counts from its own start, so the lease holds from then.
   */
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

  /** No more renewals; those in flight are aborted. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const abort of this.inFlight) abort.abort();
    this.inFlight.clear();
  }

  /** Renewals sent and not yet answered, failed or aborted. */
  get pending(): number {
    return this.inFlight.size;
  }

  /**
   * The container was restarted by a request sent at `requestedAt`: its new watcher started after
   * that and counts from its own start, so the lease holds as from a renewal answered then.
   */
  rearmed(requestedAt: number): void {
    this.lastSuccessAt = Math.max(this.lastSuccessAt, requestedAt);
  }

  /** One renewal, independent of any other; resolves whatever happens (see the class comment). */
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
      // Answered within its timeout: the arithmetic in the module comment holds for this time.
      this.lastSuccessAt = Math.max(this.lastSuccessAt, Date.now());
      this.lastFailure = undefined;
    } catch (error) {
      this.lastFailure = new Error(`renewing the lease on container ${this.container.id.slice(0, 12)} failed`, {
        cause: error,
      });
      ignored("docker: renew a container's lease (the next renewal goes out on time regardless)")(this.lastFailure);
    } finally {
      // A request that timed out is aborted, so that it neither lands late nor holds its connection.
      abort.abort();
      this.inFlight.delete(abort);
    }
  }

  /**
   * Why a leased container is gone, for messages. Its engine removes it whenever it stops
   * (AutoRemove), so the lease is named as the cause only when it had lapsed.
   */
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

/**
 * The server's exit code when it exited on its own in a leased container (the watcher keeps the
 * container up and writes it), else undefined (running, or the file could not be read).
 */
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
