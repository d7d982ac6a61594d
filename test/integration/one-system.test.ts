// test-tier: host — watches the Docker daemon's event stream: any other file's Docker use would show
/**
 * One command, one system: with a Docker daemon up and nothing set, `npm run reproduce -- --profile
 * smoke --only 01` runs on the embedded server, and the daemon, watched through its event stream
 * for the whole run, is asked for nothing: no pull (so no registry lookup), no container, no image.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";

const REPRODUCE = path.join(projectRoot(), "build", "scripts", "reproduce.js");
const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-one-system-"));
after(() => fs.rmSync(box, { recursive: true, force: true }));

interface DaemonEvent {
  readonly Type?: string;
  readonly Action?: string;
  readonly Actor?: { readonly ID?: string; readonly Attributes?: Record<string, string> };
}

function findFiles(dir: string, name: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? findFiles(full, name) : e.name === name ? [full] : [];
  });
}

test(
  "a daemon up and nothing set: 01 smoke runs embedded and the daemon sees no pull, no container",
  { timeout: 900_000 },
  async (t) => {
    // The local socket, as a user's shell without DOCKER_HOST would have it.
    const docker = new Docker({ socketPath: "/var/run/docker.sock" });
    try {
      await docker.ping();
    } catch (error) {
      return t.skip(`no Docker daemon answers on /var/run/docker.sock: ${String(error)}`);
    }
    const missing = jupyterUnavailableReason();
    if (missing) return t.skip(`Jupyter not available: ${missing}`);

    const events: DaemonEvent[] = [];
    const stream = (await docker.getEvents({})) as NodeJS.ReadableStream & { destroy(): void };
    let buffered = "";
    stream.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as DaemonEvent);
    });
    // A marker proves the stream is live before the run starts: a volume made and removed at once.
    const probe = `dblab-one-system-probe-${process.pid}`;
    await docker.createVolume({ Name: probe });
    await docker.getVolume(probe).remove();
    const closing = `${probe}-end`;
    const isProbe = (e: DaemonEvent, name: string): boolean => e.Type === "volume" && e.Actor?.ID === name;

    // Its own state folder: everything the lab creates on a daemon carries it as a label, which tells
    // this run's containers from other users' of the same daemon.
    const stateDir = path.join(box, "state");
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DBLAB_RESULTS_DIR: path.join(box, "results"),
      DBLAB_STATE_DIR: stateDir,
    };
    for (const name of [
      "DBLAB_TARGET",
      "DBLAB_PULL",
      "DOCKER_HOST",
      "DOCKER_CONTEXT",
      "DBLAB_POSTGRES_URI",
      "DBLAB_MONGODB_URI",
      "MONGODB_URI",
    ]) {
      delete env[name];
    }
    let run: { stdout: string; stderr: string };
    try {
      run = await promisify(execFile)(
        process.execPath,
        [REPRODUCE, "--profile", "smoke", "--only", "01", "--reports-dir", path.join(box, "reports")],
        { env, encoding: "utf8", timeout: 840_000, maxBuffer: 64 * 1024 * 1024 },
      );
    } finally {
      // A second marker after the run: the daemon sends its events in order, so once the marker's
      // removal has arrived, every event of the run has too (a delay here would let a late one
      // pass unseen on a slower box).
      await docker.createVolume({ Name: closing });
      await docker.getVolume(closing).remove();
      const from = Date.now();
      while (!events.some((e) => isProbe(e, closing) && e.Action === "destroy") && Date.now() - from < 60_000)
        await new Promise((resolve) => setTimeout(resolve, 50));
      stream.destroy();
    }
    assert.ok(
      events.some((e) => isProbe(e, probe)),
      "the event stream was live (the probe volume's events arrived)",
    );
    assert.ok(
      events.some((e) => isProbe(e, closing) && e.Action === "destroy"),
      "the closing marker's removal arrived within 60 s (so every event of the run had)",
    );
    const during = events.filter((e) => !isProbe(e, probe) && !isProbe(e, closing));
    assert.deepEqual(
      during.map((e) => `${e.Type ?? "?"} ${e.Action ?? "?"} ${e.Actor?.ID ?? ""}`),
      [],
      "the daemon was asked for nothing during the run (no pull, no image, no container)",
    );

    const metadata = findFiles(path.join(box, "results"), "metadata.json");
    assert.equal(metadata.length, 1, `one run's metadata: ${metadata.join(", ")}\n${run.stdout}\n${run.stderr}`);
    const m = JSON.parse(fs.readFileSync(metadata[0], "utf8")) as {
      servers: { engine: string; kind: string; storage?: { fsType: string; fsyncMs?: number } }[];
      notes?: string[];
    };
    const postgres = m.servers.find((s) => s.engine === "postgresql");
    assert.equal(postgres?.kind, "embedded");
    assert.ok(postgres.storage?.fsyncMs !== undefined, "the embedded server's storage is recorded");
    assert.ok(
      (m.notes ?? []).some((n) => /postgresql .* on the embedded target \(the default \(nothing names Docker/.test(n)),
      `the header's notes say why this target: ${JSON.stringify(m.notes)}`,
    );
  },
);
