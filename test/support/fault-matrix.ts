/**
 * The fault matrix: every notebook (01–06) under every fault that matters, each injected into a
 * real `node build/scripts/reproduce.js` (smoke, small sizes) at the point of its work that is most
 * exposed, on the targets where that fault exists. Every cell asserts the same outcome:
 * - the run ends within the cell's bound, with one error line that names the fault, the server and
 *   the engine, the number of finished trials kept and the command that resumes;
 * - no uncaught exception or unhandled rejection in any output (the runner's, the kernel's cells, its log);
 * - nothing left on either engine once the fault is undone: no container of the run, no live server
 *   process, no resource record;
 * - every trial finished before the fault is on disk unchanged;
 * - `npm run reproduce -- --resume <id>` completes without finishing a trial twice.
 *
 * The cells are chosen so that every notebook and every fault appears at least once, not the whole
 * product (which would take most of an hour): see CELLS. Two files run them: fault-matrix.test.ts
 * the cells on a Docker engine or an external server (they hold the machine's daemon, a namespace and
 * iptables rules: tier host), fault-matrix-embedded.test.ts the embedded ones (their servers and
 * kernels are their own: tier shared). `DBLAB_FAULT_CELLS=02-kill9-embedded,…`
 * runs only the named cells, `DBLAB_FAULT_CELLS=all` every cell. The ssh:// cells use test/support/remote-engine.sh (a network namespace
 * with its own dockerd and sshd); the docker cells the local engine, whose daemon is never stopped here;
 * the external cells a PostgreSQL with ssl=on reached by URI with sslmode=verify-full (see externalUp).
 * A cell `alongside` starts a second run of its notebook against the same server at the same time,
 * untouched by the fault: it must finish with its own trials while the faulted one fails and resumes.
 */
import { after, before, describe, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { remoteDockerHostUp, type RemoteDockerHostVars } from "./remote-engine";
import type Docker from "dockerode";
import { jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { processTree } from "../../lib/runtime/reaper";
import { isProcessAlive } from "../../lib/runtime/resource-registry";
import { dockerAvailable, LAB_LABEL, socketClient } from "../../lib/targets/docker/docker-client";
import { EXPERIMENTS } from "../../lib/experiments/registry";
import type { Fault, FaultCell, FaultPoint } from "../../lib/experiments/faults";
import { cleanLabDatabases, labDatabases } from "./lab-databases";
import { opensslMissing } from "./test-ca";
import { startTlsPostgres, type TlsPostgres } from "./tls-postgres";
import { logsUnder, pgbenchUnder, runReproduce, title, type Outcome } from "./reproduce-child";

const root = projectRoot();
const SCRIPT = path.join(root, "test", "support", "remote-engine.sh");
const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-fault-matrix-"));
const engineDir = path.join(box, "engine");
const LOCAL_SOCKET = "/var/run/docker.sock";
const scriptEnv = {
  ...process.env,
  DBLAB_REMOTE_NS: process.env.DBLAB_REMOTE_NS ?? `dblfm${process.pid % 10000}`,
  DBLAB_REMOTE_NET: process.env.DBLAB_REMOTE_NET ?? "10.231.44",
};

interface Cell extends FaultCell {
  /** The notebook's two digits (`--only`) and its folder-style name. */
  readonly notebook: string;
  readonly slug: string;
  readonly point: FaultPoint;
  readonly sets: readonly string[];
}

/**
 * The cells, from the registry: each notebook offers its own (its folder's index.ts: the fault at
 * its most exposed point, on the target where it is most likely met; a dropped link and a stopped
 * engine exist only for a Docker engine, and only the namespace's engine may be stopped here), on
 * top of the smoke profile and its overrides. The default eleven took 705 s here (before
 * 03-kernelkill-external-concurrent, 50–63 s of its own).
 */
const CELLS: readonly Cell[] = EXPERIMENTS.flatMap((e) =>
  (e.faults?.cells ?? []).map((cell) => ({
    ...cell,
    notebook: e.id,
    slug: e.slug,
    point: e.faults?.point ?? "batch",
    sets: (e.faults?.overrides ?? []).map((s) => `--set=${s}`),
  })),
);

const cellName = (c: Cell): string =>
  `${c.notebook}-${c.fault.replace("-", "")}-${c.target}${c.alongside ? "-concurrent" : ""}`;

/** What the one error must say, per fault: the fault in its own words. */
const FAULT_WORDS: Record<Fault, RegExp> = {
  "link-drop": /went away|link .*(lost|dropped)|cannot be reached|unreachable|keepalive/i,
  "engine-stop": /went away|engine .*(stopped|lost|gone)|cannot be reached|unreachable/i,
  "kill-9": /was lost|killed|exited|terminated|went away|not running|postmaster exit/i,
  sigstop: /stopped answering|no progress|stall|frozen|did not answer/i,
  sigterm: /SIGTERM|stopped by (a )?signal|interrupted/i,
  "kernel-kill": /kernel died/i,
};

const UNCAUGHT = /UncaughtException|unhandledRejection|Unhandled promise rejection|uncaughtException/;

type RemoteEngine = RemoteDockerHostVars;

let remote: RemoteEngine | undefined;
let remoteUnavailable: string | undefined;
let localDocker = false;
const wanted = (process.env.DBLAB_FAULT_CELLS ?? "").split(",").filter(Boolean);
const selected = CELLS.filter((c) =>
  wanted.length === 0 ? !c.byName : wanted.includes("all") || wanted.includes(cellName(c)),
);
const rows: string[] = [];

/**
 * The external cells' server: an embedded PostgreSQL with ssl=on and a certificate from a CA made
 * here, which the runs reach by URI with sslmode=verify-full, as a user names a managed server
 * (test/support/tls-postgres.ts). Its link is dropped by an iptables rule for its own port on the
 * loopback (the OS chose the port, so the rule touches nothing else): its packets vanish without a
 * word, as across a dead network.
 */
let external: TlsPostgres | undefined;
let externalUnavailable: string | undefined;

async function externalUp(): Promise<void> {
  const missing =
    opensslMissing() ??
    (process.getuid?.() !== 0 ? "needs root (iptables, for the dropped link)" : undefined) ??
    (spawnSync("iptables", ["-L", "INPUT", "-n"]).status !== 0 ? "iptables does not run here" : undefined);
  if (missing) return void (externalUnavailable = missing);
  external = await startTlsPostgres("fault-tls");
}

/** The rule that drops the external server's packets (client to server: nothing reaches it). */
const dropRule = (e: TlsPostgres): string[] => [
  "INPUT",
  "-i",
  "lo",
  "-p",
  "tcp",
  "-d",
  "127.0.0.1",
  "--dport",
  String(e.server.connection.port),
  "-j",
  "DROP",
];
const iptablesExternal = (e: TlsPostgres, op: "-I" | "-D") => spawnSync("iptables", [op, ...dropRule(e)]).status === 0;

function registerHooks(cells: readonly Cell[]): void {
  const mine = selected.filter((c) => cells.includes(c));
  before(async () => {
    localDocker = fs.existsSync(LOCAL_SOCKET) && (await dockerAvailable(3000));
    if (mine.some((c) => c.target === "external")) await externalUp();
    if (!mine.some((c) => c.target === "ssh")) return;
    const up = remoteDockerHostUp(SCRIPT, engineDir, scriptEnv);
    if ("unavailable" in up) remoteUnavailable = up.unavailable;
    else remote = up.engine;
  });

  after(async () => {
    if (remote) spawnSync("bash", [SCRIPT, "down", engineDir], { env: scriptEnv, timeout: 120_000 });
    if (external) {
      // A cell that failed between the drop and its undo must not leave the rule behind.
      while (iptablesExternal(external, "-D"));
      await external.stop();
    }
    fs.rmSync(box, { recursive: true, force: true });
    if (rows.length) console.log(`\nfault matrix:\n${rows.join("\n")}`);
  });
}

interface Trial {
  readonly key: string;
  readonly status: string;
}

function trialLines(dir: string | undefined): string[] {
  const file = dir ? path.join(dir, "trials.jsonl") : "";
  if (!file || !fs.existsSync(file)) return [];
  // A torn last line is one being written as we read.
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => {
      try {
        JSON.parse(l);
        return true;
      } catch {
        return false;
      }
    });
}

/** The error as the table shows it: without the notebook runner's cell prefix, which every row shares. */
const tableMessage = (message: string): string =>
  message
    .replace(/^✗ \S+ (failed|interrupted): cell \d+ \(code cell \d+ of \d+: `[^`]*`\): /, "$1: ")
    .slice(0, 300)
    .replace(/\|/g, "/");

/** The table's view of the problems: each one's first line. */
const firstLines = (problems: readonly string[]): string => problems.map((p) => p.split("\n")[0]).join("; ");
/** The problems in full, first in a failure's message (the end of `npm test` shows its first lines). */
const problemList = (problems: readonly string[]): string =>
  problems.length ? `${problems.length} problem(s):\n${problems.map((p) => `- ${p}`).join("\n")}` : "no other problem";
/** A run's `✗` lines: what it said went wrong. */
const errorLines = (output: string): string =>
  output
    .split("\n")
    .filter((l) => l.startsWith("✗ "))
    .join("\n") || "(no ✗ line)";

const parse = (lines: readonly string[]): Trial[] => lines.map((l) => JSON.parse(l) as Trial);

interface Where {
  readonly docker?: Docker;
  readonly stateDir: string;
}

/** The run's containers on an engine (by the state-dir label the lab puts on each). */
async function containersOf(docker: Docker, stateDir: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${LAB_LABEL}.state-dir=${stateDir}`] } });
}

/** Main pids of the run's servers: embedded ones from its records, containers' from the engine. */
async function serverPids(where: Where): Promise<number[]> {
  const pids: number[] = [];
  const dir = path.join(where.stateDir, "resources");
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    try {
      const r = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")) as {
        resource: { pid?: number; description: string };
      };
      if (r.resource.pid && /embedded PostgreSQL pid \d+ port/.test(r.resource.description)) pids.push(r.resource.pid);
    } catch {
      // being written
    }
  }
  if (where.docker) {
    for (const c of await containersOf(where.docker, where.stateDir).catch(() => [])) {
      if (c.State !== "running") continue;
      const info = await where.docker
        .getContainer(c.Id)
        .inspect()
        .catch(() => undefined);
      if (info?.State.Pid) pids.push(info.State.Pid);
    }
  }
  return pids;
}

/** The server (of several, 05's primary and standbys) whose processes show the point, or undefined. */
function atPoint(point: FaultPoint, servers: readonly number[], runner: number): number | undefined {
  for (const pid of servers) {
    const titles = processTree(pid).map(title);
    const hit =
      point === "batch"
        ? titles.some((t) => /^postgres: .* (INSERT|UPDATE|BIND)/.test(t))
        : point === "create-index"
          ? titles.some((t) => /^postgres: .* CREATE INDEX/.test(t))
          : point === "quorum"
            ? titles.some((t) => /walsender/.test(t)) &&
              titles.some((t) => /^postgres: .* (UPDATE|COMMIT|idle in transaction)/.test(t))
            : [...titles, ...processTree(runner).map(title)].some((t) => /(^|\/)pgbench /.test(t));
    if (hit) return pid;
  }
  return undefined;
}

/** A run's outcome, or undefined if it has not ended within `seconds`. */
const within = (done: Promise<Outcome>, seconds: number): Promise<Outcome | undefined> =>
  Promise.race([done, new Promise<undefined>((r) => setTimeout(() => r(undefined), seconds * 1000).unref())]);

/** The run's kernel (the lab's tslab, under the runner's notebook client), or undefined. */
function kernelUnder(runner: number): number | undefined {
  return processTree(runner).find((p) => /kernel-preload|tslab/.test(title(p)) && !/watcher/.test(title(p)));
}

function signalTree(pid: number, sig: NodeJS.Signals): void {
  for (const p of processTree(pid)) {
    try {
      process.kill(p, sig);
    } catch {
      // gone
    }
  }
}

const iptables = (r: RemoteEngine, op: "-I" | "-D") =>
  spawnSync("ip", ["netns", "exec", r.ns, "iptables", op, "INPUT", "-p", "tcp", "--dport", "22", "-j", "DROP"])
    .status === 0;

/** The output's lines after `from` (the fault), each with its seconds since then: a slow end's path. */
function timeline(outcome: Pick<Outcome, "chunks">, from: number, last = 25): string {
  return outcome.chunks
    .filter((c) => c.at >= from)
    .flatMap((c) =>
      c.text
        .split("\n")
        .filter((l) => l.trim() !== "")
        // An error line whole: it says why the run ended.
        .map((l) => `+${((c.at - from) / 1000).toFixed(1)} s ${l.startsWith("✗ ") ? l : l.slice(0, 160)}`),
    )
    .slice(-last)
    .join("\n");
}

/**
 * Why a cell found no point, first what a summary of failures shows (its first lines): whether the
 * run had ended (and its `✗` lines: the error is at the end of its output) or the wait's deadline
 * passed; then the looks made after the first finished trial (a point shorter than the longest gap
 * between two can fall between them); then the END of the run's output, each line with its time
 * since the cell started.
 */
async function notReached(
  name: string,
  point: FaultPoint,
  run: { readonly done: Promise<Outcome>; readonly chunks: Outcome["chunks"] },
  ended: boolean,
  started: number,
  looks: readonly { readonly at: number; readonly ms: number }[],
): Promise<string> {
  const outcome = ended ? await run.done : undefined;
  const why = outcome
    ? `the run had ended (exit ${outcome.code}) saying:\n${errorLines(outcome.output)}`
    : "the wait's deadline passed with the run still running";
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const gaps = looks.slice(1).map((l, i) => ({ from: looks[i].at, gap: l.at - looks[i].at }));
  const longest = gaps.reduce((a, b) => (b.gap > a.gap ? b : a), { from: 0, gap: 0 });
  const lookText = looks.length
    ? `${looks.length} look(s) after the first finished trial, from +${s(looks[0].at)} s to +${s(looks[looks.length - 1].at)} s; ` +
      `the longest took ${s(Math.max(...looks.map((l) => l.ms)))} s, the longest gap between two ${s(longest.gap)} s (from +${s(longest.from)} s)`
    : "no look: no finished trial on disk";
  return (
    `${name}: the run never reached the point (${point}): ${why}\n${lookText}\n` +
    `the end of its output (seconds since the cell started):\n${timeline(outcome ?? run, started, 40)}`
  );
}

async function runCell(t: TestContext, cell: Cell): Promise<void> {
  const missing = jupyterUnavailableReason();
  if (missing) return void t.skip(`Jupyter not available: ${missing}`);
  if (cell.target === "docker" && !localDocker) return void t.skip("no local Docker engine answers");
  if (cell.target === "ssh" && !remote) return void t.skip(remoteUnavailable ?? "no remote engine");
  if (cell.target === "external" && !external) return void t.skip(externalUnavailable ?? "no external server");
  // The external cells share one server, one after the other: each starts from it checked (and
  // cleaned of what a failed cell before it left), so that its own end check reads only its runs.
  if (cell.target === "external" && external) await cleanLabDatabases(t, external.server);
  const started = Date.now();
  const name = cellName(cell);
  const base = path.join(box, name);
  const stateDir = path.join(base, "state");
  const results = path.join(base, "results");
  const reports = path.join(base, "reports");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DBLAB_STATE_DIR: stateDir,
    DBLAB_RESULTS_DIR: results,
    DBLAB_PULL: "never",
    DBLAB_TARGET: cell.target === "ssh" ? "docker" : cell.target,
    ...cell.env,
  };
  let docker: Docker | undefined;
  let engineName = "embedded";
  if (cell.target === "ssh" && remote) {
    Object.assign(env, { HOME: remote.home, DOCKER_HOST: remote.dockerHost });
    docker = socketClient(remote.socket);
    engineName = remote.dockerHost;
  } else if (cell.target === "docker") {
    delete env.DOCKER_HOST;
    docker = socketClient(LOCAL_SOCKET);
    engineName = "docker";
  } else if (cell.target === "external" && external) {
    env.DBLAB_POSTGRES_URI = external.uri;
    // The error names the server by its address: there is no engine of ours in between.
    engineName = external.address;
  }
  const where: Where = { docker, stateDir };
  const runDir = (): string | undefined =>
    fs.existsSync(results) ? fs.readdirSync(results).map((d) => path.join(results, d))[0] : undefined;

  const first = runReproduce(
    ["--profile", "smoke", "--only", cell.notebook, ...cell.sets, "--reports-dir", reports],
    env,
  );
  let ended = false;
  void first.done.then(() => (ended = true));
  let undo: (() => void) | undefined;
  // Another user's run of the same notebook on the same server at the same time: its own folders.
  const besideResults = `${results}-alongside`;
  const beside = cell.alongside
    ? runReproduce(
        ["--profile", "smoke", "--only", cell.notebook, ...cell.sets, "--reports-dir", `${reports}-alongside`],
        {
          ...env,
          DBLAB_RESULTS_DIR: besideResults,
        },
      )
    : undefined;
  let kept: string[] = [];
  let faultAt = 0;
  const seenServers = new Set<number>();
  const seenClients = new Set<number>();
  try {
    // The point: a finished trial on disk, and the server busy with the exposed part of the next.
    let target: number | undefined;
    const deadline = Date.now() + 240_000;
    // Each look after the first trial: when it started and how long it took (a slow look can miss a short point).
    const looks: { at: number; ms: number }[] = [];
    while (!ended && Date.now() < deadline) {
      if (parse(trialLines(runDir())).some((x) => x.status === "ok")) {
        const lookAt = Date.now();
        const servers = await serverPids(where);
        for (const s of servers) seenServers.add(s);
        // The runner's pgbench children (03, 04, 06 drive the server with one): none may outlive the run.
        for (const p of processTree(first.child.pid ?? 0)) if (/(^|\/)pgbench /.test(title(p))) seenClients.add(p);
        // An external server has no process of ours to look at: its pgbench is the runner's child.
        const point =
          cell.target === "external"
            ? pgbenchUnder(first.child.pid ?? 0)
            : atPoint(cell.point, servers, first.child.pid ?? 0);
        target = point !== undefined && cell.fault === "kernel-kill" ? kernelUnder(first.child.pid ?? 0) : point;
        looks.push({ at: lookAt - started, ms: Date.now() - lookAt });
        if (target !== undefined) break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    if (target === undefined || ended) assert.fail(await notReached(name, cell.point, first, ended, started, looks));
    t.diagnostic(
      `${name}: at the point +${((Date.now() - started) / 1000).toFixed(1)} s, after ${looks.length} look(s), the longest ${(Math.max(...looks.map((l) => l.ms)) / 1000).toFixed(2)} s`,
    );
    kept = trialLines(runDir()).filter((l) => (JSON.parse(l) as Trial).status === "ok");
    faultAt = Date.now();
    switch (cell.fault) {
      case "sigterm":
        first.child.kill("SIGTERM");
        break;
      case "kill-9":
      case "kernel-kill":
        process.kill(target, "SIGKILL");
        break;
      case "sigstop":
        signalTree(target, "SIGSTOP");
        undo = () => signalTree(target, "SIGCONT");
        break;
      case "link-drop": {
        if (cell.target === "external") {
          const e = external;
          assert.ok(e && iptablesExternal(e, "-I"), "iptables for the external server's port");
          undo = () => void iptablesExternal(e, "-D");
          break;
        }
        const r = remote;
        assert.ok(r && iptables(r, "-I"), "iptables in the namespace");
        undo = () => void iptables(r, "-D");
        break;
      }
      case "engine-stop":
        assert.equal(spawnSync("bash", [SCRIPT, "engine-stop", engineDir], { env: scriptEnv }).status, 0);
        undo = () => {
          const up = spawnSync("bash", [SCRIPT, "engine-start", engineDir], { env: scriptEnv, encoding: "utf8" });
          assert.equal(up.status, 0, `engine-start: ${up.stderr}`);
        };
        break;
    }
    const outcome = await within(first.done, cell.boundSeconds + 60);
    const seconds = (Date.now() - faultAt) / 1000;
    assert.ok(outcome, `${name}: still running ${cell.boundSeconds + 60} s after the fault`);
    t.diagnostic(`${name}: ended ${seconds.toFixed(1)} s after the fault (bound ${cell.boundSeconds} s)`);
    const { code, output } = outcome;
    const dir = runDir();
    assert.ok(dir, "the run has a directory");
    const runId = path.basename(dir);

    // One error naming the fault, the server and the engine, what was kept, and how to resume.
    const errors = output.split("\n").filter((l) => l.startsWith("✗ "));
    const message = errors.join("\n");
    const resumeLine = output.split("\n").find((l) => l.includes("resume with: npm run reproduce"));
    // The cell's own row, rewritten as it goes: with lanes at once, the last row may be another cell's.
    const row = rows.push("") - 1;
    const record = (result: string): void => {
      rows[row] =
        `| ${cell.notebook} | ${cell.fault} | ${cell.target} | ${cell.boundSeconds} s (${seconds.toFixed(0)} s) | ${tableMessage(message)} | ${kept.length} | ${result} |`;
    };
    record("first run ended");
    // Checked on, not thrown at once: a wrong message must not hide whether the resume and the
    // cleanup hold. All problems fail the cell at its end.
    const problems: string[] = [];
    const soft = async (check: () => void | Promise<void>): Promise<void> => {
      try {
        await check();
      } catch (e) {
        problems.push((e as Error).message);
      }
    };
    const okNow = parse(trialLines(dir)).filter((x) => x.status === "ok").length;
    // The run's record says what ended it: a signal is an interruption (the server loss that follows
    // its shutdown hooks is a consequence), any other fault a failure.
    await soft(() => {
      const { outcome: ended } = JSON.parse(fs.readFileSync(path.join(dir, "metadata.json"), "utf8")) as {
        outcome?: string;
      };
      // A kernel killed cannot write one: the run reads as stopped by its dead owner.
      const expected = cell.fault === "sigterm" ? "interrupted" : cell.fault === "kernel-kill" ? undefined : "failed";
      assert.equal(ended, expected, "metadata.json's outcome");
    });
    await soft(() =>
      assert.equal(code, cell.fault === "sigterm" ? 128 + os.constants.signals.SIGTERM : 1, `exit status ${code}`),
    );
    await soft(() =>
      assert.ok(
        seconds <= cell.boundSeconds,
        `ended ${seconds.toFixed(1)} s after the fault, bound ${cell.boundSeconds} s; after the fault:\n${timeline(outcome, faultAt)}`,
      ),
    );
    await soft(() => assert.equal(errors.length, 1, `${errors.length} error lines, not one`));
    await soft(() => assert.match(message, FAULT_WORDS[cell.fault], "the error does not name the fault"));
    // The server is the fault's subject, except for a signal to the runner and a killed kernel.
    if (cell.fault !== "sigterm" && cell.fault !== "kernel-kill") {
      await soft(() => assert.match(message, /PostgreSQL/, "the error does not name the server"));
      await soft(() =>
        cell.target !== "embedded"
          ? assert.ok(message.includes(engineName), `the error does not name the engine ${engineName}`)
          : assert.match(message, /embedded/, "the error does not say the server is embedded"),
      );
    }
    await soft(() => {
      assert.ok(resumeLine?.includes(`--resume ${runId}`), "no resume command");
      assert.match(resumeLine ?? "", new RegExp(`\\b${okNow} finished trial\\(s\\) kept`), "the kept count is wrong");
    });
    const texts = [
      output,
      ...[reports, path.join(root, ".jupyter-runtime", "runs")].flatMap((d) => logsUnder(d, runId)),
    ];
    await soft(() => {
      for (const text of texts)
        assert.ok(
          !UNCAUGHT.test(text),
          `an uncaught exception: ${UNCAUGHT.exec(text)?.[0]} …${text.slice(text.search(UNCAUGHT), text.search(UNCAUGHT) + 120).replace(/\s+/g, " ")}`,
        );
    });

    // Every trial finished before the fault is on disk, unchanged.
    const lines = trialLines(dir);
    for (const k of kept) assert.ok(lines.includes(k), `${name}: kept as it was: ${k.slice(0, 80)}`);

    // Undo the fault; then nothing of the run may be left (the resume removes a container kept for later).
    undo?.();
    undo = undefined;
    if (cell.target === "embedded") await soft(() => assertNothingLeft(where, seenServers, name, true));
    // A pgbench whose link went away (or whose server did) must not be left running: the runner ended.
    await soft(async () => {
      const deadline = Date.now() + 5_000;
      const alive = () => [...seenClients].filter((p) => isProcessAlive(p) && /(^|\/)pgbench /.test(title(p)));
      while (alive().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(
        alive(),
        [],
        `no pgbench left by the failed run (seen: ${[...seenClients].join(", ") || "none"})`,
      );
    });

    // Not spawnSync: a run alongside goes on meanwhile, and its output must be read.
    const besideRunning = beside !== undefined && beside.child.exitCode === null;
    const resuming = runReproduce(["--resume", runId, "--reports-dir", reports], { ...env, DBLAB_STALL_SECONDS: "" });
    const resumedEnd = await within(resuming.done, 300);
    if (!resumedEnd) resuming.child.kill("SIGKILL");
    const resumed = resumedEnd ?? { ...(await resuming.done), code: null };
    record(`${resumed.code === 0 ? "resumed" : `resume exit ${resumed.code}`}; ${firstLines(problems)}`);
    assert.equal(
      resumed.code,
      0,
      `${name} resume exit ${resumed.code}: ${errorLines(resumed.output)}\n${problemList(problems)}\n${resumed.output}`,
    );
    assert.doesNotMatch(resumed.output, UNCAUGHT);
    assert.match(resumed.output, new RegExp(`skipped ${okNow} finished trial\\(s\\)`));
    const all = parse(trialLines(dir))
      .filter((x) => x.status === "ok")
      .map((x) => x.key);
    assert.equal(new Set(all).size, all.length, `${name}: no trial finished twice`);
    for (const k of kept) assert.ok(trialLines(dir).includes(k), `${name}: still kept after the resume`);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, "metadata.json"), "utf8")) as { outcome?: string };
    assert.equal(meta.outcome, "finished");
    // The run beside it: finished, unaffected, its trials its own (the resume ran while it did).
    const besideOutputs: string[] = [];
    if (beside) {
      const b = await within(beside.done, 300);
      assert.ok(b, `${name}: the run alongside still running 300 s after the resume`);
      besideOutputs.push(b.output);
      const bDir = fs.existsSync(besideResults)
        ? path.join(besideResults, fs.readdirSync(besideResults)[0])
        : undefined;
      const bTrials = parse(trialLines(bDir));
      t.diagnostic(
        `${name}: the run alongside (${besideRunning ? "still running" : "already ended"} when the resume started) ended ${b.code}, ${bTrials.length} trial(s), ${bTrials.filter((x) => x.status === "ok").length} ok`,
      );
      assert.equal(b.code, 0, `${name}: the run alongside failed: ${errorLines(b.output)}\n${b.output.slice(-2000)}`);
      assert.ok(bDir && path.basename(bDir) !== runId, "the run alongside has its own run");
      assert.ok(
        bTrials.length > 0 && bTrials.every((x) => x.status === "ok"),
        "every trial of the run alongside finished",
      );
      const bMeta = JSON.parse(fs.readFileSync(path.join(bDir, "metadata.json"), "utf8")) as { outcome?: string };
      assert.equal(bMeta.outcome, "finished", "the run alongside's outcome");
    }
    await assertNothingLeft(where, seenServers, name, false);
    const e = cell.target === "external" ? external : undefined;
    if (e) {
      // The resume drops what the failed run left on the server (its database, templates, clones).
      await soft(async () => assert.deepEqual(await labDatabases(e.server), [], "left on the server"));
      await soft(() => {
        for (const text of [...texts, resumed.output, ...besideOutputs])
          assert.ok(!text.includes(e.password), "the server's password is in an output, a report or a log");
      });
    }
    record(problems.length ? `resumed; FAIL: ${firstLines(problems)}` : "pass");
    assert.deepEqual(problems, [], `${name}: ${problemList(problems)}\nthe run's output:\n${output}`);
  } finally {
    undo?.();
    if (!ended) first.child.kill("SIGKILL");
    await first.done;
    if (beside && beside.child.exitCode === null) beside.child.kill("SIGTERM");
    await beside?.done;
    t.diagnostic(`${name}: ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
  }
}

async function assertNothingLeft(
  where: Where,
  servers: ReadonlySet<number>,
  name: string,
  firstRun: boolean,
): Promise<void> {
  const deadline = Date.now() + 15_000;
  const alive = () => [...servers].filter((p) => isProcessAlive(p));
  while (alive().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(alive(), [], `${name}: no server process left${firstRun ? " by the failed run" : ""}`);
  const dir = path.join(where.stateDir, "resources");
  assert.deepEqual(fs.existsSync(dir) ? fs.readdirSync(dir) : [], [], `${name}: no resource record left`);
  if (where.docker)
    assert.deepEqual(await containersOf(where.docker, where.stateDir), [], `${name}: no container left`);
  if (localDocker) {
    assert.deepEqual(
      await containersOf(socketClient(LOCAL_SOCKET), where.stateDir),
      [],
      `${name}: none on the local engine`,
    );
  }
}

/**
 * The lane a cell runs in: cells of one lane one after the other, lanes at once. The namespace's
 * cells share its sshd and dockerd, which a link drop or an engine stop takes from every run there;
 * the other targets' cells each hold only what they start, but one lane for them all keeps the file
 * at two runs at a time on 2 cores. Measured alone here, the three ssh cells took 228 s, 134 s of
 * it waiting for a dropped link to be noticed, the CPU idle meanwhile: the other lane's cells fill it.
 */
const laneOf = (c: Cell): string => (c.target === "ssh" ? "the remote engine's namespace" : "the local machine");

/**
 * Registers the cells whose target is one of `targets`, lane by lane (laneOf), the lanes at once
 * when `concurrentLanes`.
 */
export function faultMatrix(targets: readonly FaultCell["target"][], concurrentLanes: boolean): void {
  const cells = CELLS.filter((c) => targets.includes(c.target));
  registerHooks(cells);
  const lanes = new Map<string, Cell[]>();
  for (const c of cells) lanes.set(laneOf(c), [...(lanes.get(laneOf(c)) ?? []), c]);
  describe("fault matrix", { concurrency: concurrentLanes ? lanes.size : 1 }, () => {
    for (const [lane, laneCells] of lanes) {
      test(`cells on ${lane}, one after the other`, { timeout: 600_000 * laneCells.length }, async (t) => {
        for (const cell of laneCells) {
          const run = selected.includes(cell);
          await t.test(
            `fault matrix ${cellName(cell)}: ${cell.fault} mid-${cell.point} of ${cell.slug} on ${cell.target}`,
            {
              timeout: 600_000,
              skip: run ? false : cell.byName ? "run by name only (DBLAB_FAULT_CELLS)" : "not in DBLAB_FAULT_CELLS",
            },
            async (t) => runCell(t, cell),
          );
        }
      });
    }
  });
}
