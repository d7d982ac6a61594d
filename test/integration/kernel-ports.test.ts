// test-tier: shared — Jupyter kernels, one at a time
/**
 * A CI run beside a default run once failed with "Kernel didn't respond in 120 seconds": a port
 * Jupyter picks for the kernel can be taken by any process's outgoing connection before the kernel
 * binds it, and tslab then logged the failed bind and lived on without answering. The headless
 * runner now gives the kernel Unix sockets, and a kernel that cannot listen ends with the reason.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describeFailure, executeNotebook, jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { ensureKernelSpec, projectRoot } from "../../lib/jupyter/kernel-spec";

const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-kernel-ports-"));
after(() => fs.rmSync(box, { recursive: true, force: true }));

/** A notebook of the parameters cell and one code cell of `lines`. */
function writeNotebook(name: string, lines: readonly string[]): string {
  const notebook = path.join(box, `${name}.ipynb`);
  const kernelspec = { display_name: "TypeScript (db-write-lab)", language: "typescript", name: "db-write-lab" };
  const cells = ['let profile = "default";\nlet overrides: Record<string, unknown> = {};', lines.join("\n")].map(
    (source, i) => ({
      cell_type: "code",
      metadata: i === 0 ? { tags: ["parameters"] } : {},
      execution_count: null,
      outputs: [],
      source,
    }),
  );
  fs.writeFileSync(notebook, JSON.stringify({ cells, metadata: { kernelspec }, nbformat: 4, nbformat_minor: 5 }));
  return notebook;
}

/** Alive and not a zombie (an orphan's zombie waits for whichever process adopted it). */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

const parentOf = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
};

function kernelArgv(connectionFile: string): string[] {
  const spec = JSON.parse(fs.readFileSync(ensureKernelSpec(projectRoot()).kernelJson, "utf8")) as { argv: string[] };
  return spec.argv.map((a) => a.replace("{connection_file}", connectionFile));
}

test(
  "a kernel whose port another process holds ends and says why, rather than living on silent",
  { timeout: 120_000 },
  async (t) => {
    const missing = jupyterUnavailableReason();
    if (missing) return t.skip(`Jupyter not available: ${missing}`);
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    t.after(() => holder.close());
    const taken = (holder.address() as net.AddressInfo).port;
    const free = await Promise.all(
      [0, 1, 2, 3].map(
        () =>
          new Promise<number>((resolve) => {
            const s = net.createServer().listen(0, "127.0.0.1", () => {
              const port = (s.address() as net.AddressInfo).port;
              s.close(() => resolve(port));
            });
          }),
      ),
    );
    const connectionFile = path.join(box, "taken.json");
    fs.writeFileSync(
      connectionFile,
      JSON.stringify({
        shell_port: taken,
        iopub_port: free[0],
        stdin_port: free[1],
        control_port: free[2],
        hb_port: free[3],
        ip: "127.0.0.1",
        key: "test",
        transport: "tcp",
        signature_scheme: "hmac-sha256",
        kernel_name: "db-write-lab",
      }),
    );
    const [command, ...args] = kernelArgv(connectionFile);
    const kernel = spawn(command, args, { cwd: box, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    kernel.stdout.on("data", (d: Buffer) => (output += d.toString()));
    kernel.stderr.on("data", (d: Buffer) => (output += d.toString()));
    t.after(() => kernel.kill("SIGKILL"));
    // Before the fix the kernel never exits: the test's own timeout is the bound.
    const code = await new Promise<number | null>((resolve) => kernel.on("exit", resolve));
    assert.equal(code, 1, output);
    assert.match(output, new RegExp(`cannot listen on its tcp sockets at 127\\.0\\.0\\.1: .*in use`, "i"));
  },
);

test("the headless runner's kernel listens on Unix sockets, removed after the run", { timeout: 300_000 }, async (t) => {
  const missing = jupyterUnavailableReason();
  if (missing) return t.skip(`Jupyter not available: ${missing}`);
  const notebook = writeNotebook("transport", [
    'import * as fs from "fs";',
    'const file = process.argv[process.argv.indexOf("--config-path") + 1];',
    'const info = JSON.parse(fs.readFileSync(file, "utf8"));',
    "console.log(`transport=${info.transport} ip=${info.ip}`);",
  ]);
  const tmp = path.join(box, "tmp");
  fs.mkdirSync(tmp);
  const outputIpynb = path.join(box, "transport.out.ipynb");
  const result = await executeNotebook({ notebook, outputIpynb, profile: "smoke", env: { TMPDIR: tmp } });
  assert.equal(result.status, "ok", result.failure ? describeFailure(result.failure) : result.message);
  const out = JSON.parse(fs.readFileSync(outputIpynb, "utf8")) as {
    cells: { outputs: { text?: string | string[] }[] }[];
  };
  const printed = out.cells
    .flatMap((c) => c.outputs)
    .map((o) => [o.text ?? ""].flat().join(""))
    .join("");
  const m = /transport=(\S+) ip=(\S+)/.exec(printed);
  assert.ok(m, `the cell printed the kernel's connection: ${printed}`);
  assert.equal(m[1], "ipc");
  assert.ok(m[2].startsWith(tmp + path.sep), `the sockets live in the run's own folder under TMPDIR: ${m[2]}`);
  assert.deepEqual(fs.readdirSync(tmp), [], "the socket folder is removed after the run");
});

test(
  "a kernel whose executor was killed ends itself rather than running on orphaned",
  { timeout: 180_000 },
  async (t) => {
    const missing = jupyterUnavailableReason();
    if (missing) return t.skip(`Jupyter not available: ${missing}`);
    const notebook = writeNotebook("orphan", ["await new Promise((resolve) => setTimeout(resolve, 600_000));"]);
    const tmp = path.join(box, "tmp-orphan");
    fs.mkdirSync(tmp);
    let kernelPid = 0;
    let waiting: () => void = () => undefined;
    const cellStarted = new Promise<void>((resolve) => (waiting = resolve));
    const execution = executeNotebook({
      notebook,
      outputIpynb: path.join(box, "orphan.out.ipynb"),
      profile: "smoke",
      env: { TMPDIR: tmp },
      onEvent: (e) => {
        if (e.event === "kernel" && e.pid) kernelPid = e.pid;
        if (e.event === "cell" && e.phase === "start" && e.index === 2) waiting();
      },
    });
    await cellStarted;
    assert.ok(kernelPid > 0 && running(kernelPid), "the kernel runs the long cell");
    t.after(() => {
      if (running(kernelPid)) process.kill(kernelPid, "SIGKILL");
    });
    process.kill(parentOf(kernelPid), "SIGKILL");
    const result = await execution;
    assert.notEqual(result.status, "ok");
    // Before the fix the kernel never ends: the test's own timeout is the bound.
    while (running(kernelPid)) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(fs.readdirSync(tmp), [], "the socket folder is removed");
  },
);
