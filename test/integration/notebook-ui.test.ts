// test-tier: shared — npm run lab on a free loopback port, Chromium, embedded runs; its own state folder
/**
 * The notebook as people drive it: `npm run lab` (classic Notebook) on a free loopback port with a
 * token, driven in headless Debian Chromium through playwright-core.
 *
 * 1. Notebook 01 on `smoke`, Run All: every cell runs, no cell errors, the charts draw.
 * 2. A `default` run, the toolbar's Stop once trials are on disk: the cell says "interrupted: N of M
 *    trials kept", the kernel keeps its variables, the run's servers are gone, its trials stay.
 * 3. Restart, Shut Down, `kill -9` of the kernel and the Jupyter server stopped (SIGTERM), each
 *    during a run: no server of the run survives. The kernel's own SIGTERM handler does it for the
 *    polite ways; after a SIGKILL only its watcher (runtime/watcher.ts) can.
 *
 * The notebooks are copies in a temporary folder (autosave must not rewrite notebooks/), and the
 * lab's records go to a state folder of this test only. "Gone within 60 s" is a correctness bound
 * (the watcher needs well under a second here), not a timing assertion.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { projectRoot } from "../../lib/jupyter/kernel-spec";
import { isProcessAlive } from "../../lib/runtime/resource-registry";
import { reportToPdf } from "../../scripts/report-pdf";
import { CHROMIUM_ARGS, CHROMIUM_PATH, checkReportRenders } from "../support/report-check";

const root = projectRoot();
const JUPYTER = process.env.DBLAB_JUPYTER ?? "/usr/bin/jupyter";
const GONE_BOUND_MS = 60_000;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-ui-test-"));
const stateDir = path.join(work, "state");
const resultsDir = path.join(work, "results");
const notebookDir = path.join(work, "notebooks");
const token = randomBytes(16).toString("hex");
let lab: ChildProcess | undefined;
let browser: Browser | undefined;

after(async () => {
  await browser?.close().catch(() => undefined);
  if (lab?.pid && lab.exitCode === null) {
    try {
      process.kill(-lab.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  // Anything a failed step left behind: the lab's own reaper, on this test's state folder only.
  spawnSync(process.execPath, [path.join(root, "build", "scripts", "clean.js")], {
    env: { ...process.env, DBLAB_STATE_DIR: stateDir },
    stdio: "ignore",
  });
  if (!process.env.DBLAB_KEEP_TEST_OUTPUT) fs.rmSync(work, { recursive: true, force: true });
});

function unavailable(): string | undefined {
  if (!fs.existsSync(CHROMIUM_PATH))
    return `Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium, or set DBLAB_CHROMIUM)`;
  const jupyter = fs.existsSync(JUPYTER) ? JUPYTER : "jupyter";
  const probe = spawnSync(jupyter, ["notebook", "--version"], { encoding: "utf8" });
  if (probe.status !== 0) return `\`${jupyter} notebook\` is not available (apt-get install jupyter-notebook)`;
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

interface LiveProcess {
  readonly pid: number;
  /** The kernel that registered it. */
  readonly ownerPid: number;
  readonly ticks?: number;
  readonly description: string;
}

/** Processes recorded in this test's state folder (servers, proxies) that are still running. */
function recordedProcesses(): LiveProcess[] {
  const dir = path.join(stateDir, "resources");
  if (!fs.existsSync(dir)) return [];
  const out: LiveProcess[] = [];
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".json"))) {
    try {
      const record = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")) as {
        ownerPid: number;
        resource: { type: string; pid?: number; pidStartTicks?: number; description: string };
      };
      const r = record.resource;
      // A server's record names the kernel itself until the server has a pid (initdb): skip those.
      if (r.type === "process" && r.pid && r.pid !== record.ownerPid && isProcessAlive(r.pid, r.pidStartTicks))
        out.push({ pid: r.pid, ownerPid: record.ownerPid, ticks: r.pidStartTicks, description: r.description });
    } catch {
      // half-written record
    }
  }
  return out;
}

async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Waits until every process in `servers` has exited; returns how long that took (for the log). */
async function serversGone(servers: readonly LiveProcess[], since: number): Promise<number> {
  await waitFor(
    `the run's servers to be gone (${servers.map((s) => s.description).join("; ")})`,
    () => servers.every((s) => !isProcessAlive(s.pid, s.ticks)),
    GONE_BOUND_MS,
  );
  return Date.now() - since;
}

function runFolders(): string[] {
  return fs.existsSync(resultsDir)
    ? fs
        .readdirSync(resultsDir)
        .filter((d) => d.includes("01-index-write-cost"))
        .sort()
    : [];
}

/** The newest run folder of notebook 01 not in `before` with at least `min` trials on disk. */
function trialsOnDisk(min: number, before: readonly string[]): { dir: string; trials: number } | undefined {
  const runs = runFolders().filter((d) => !before.includes(d));
  const dir = runs.at(-1);
  if (!dir) return undefined;
  const file = path.join(resultsDir, dir, "trials.jsonl");
  const trials = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
  return trials >= min ? { dir: path.join(resultsDir, dir), trials } : undefined;
}

// Page-side code is passed as strings: the project's tsconfig has no DOM lib, and these name the
// Notebook's own globals (Jupyter.notebook).
const KERNEL_IDLE =
  "window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected() && document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null";

async function openNotebook(page: Page, port: number): Promise<void> {
  await page.goto(`http://127.0.0.1:${port}/notebooks/01-index-write-cost.ipynb?token=${token}`, { waitUntil: "load" });
  await page.waitForFunction(KERNEL_IDLE, undefined, { timeout: 120_000 });
}

/** Index of the cell tagged `parameters`, and of the cell that starts the run. */
async function cellIndexes(page: Page): Promise<{ params: number; run: number }> {
  return page.evaluate(`(() => {
    const cells = Jupyter.notebook.get_cells();
    const params = cells.findIndex((c) => (c.metadata.tags || []).includes("parameters"));
    const run = cells.findIndex((c) => c.cell_type === "code" && c.get_text().includes("lab.indexWriteCost.run("));
    return { params, run };
  })()`);
}

async function setProfile(page: Page, profile: string): Promise<void> {
  const { params } = await cellIndexes(page);
  assert.ok(params >= 0, "notebook 01 has a parameters cell");
  await page.evaluate(`(() => {
    const cell = Jupyter.notebook.get_cell(${params});
    cell.set_text(cell.get_text().replace(/let profile: ProfileName = "[a-z]+";/, 'let profile: ProfileName = "${profile}";'));
  })()`);
  const text = await page.evaluate<string>(`Jupyter.notebook.get_cell(${params}).get_text()`);
  assert.match(text, new RegExp(`profile: ProfileName = "${profile}"`), "the parameters cell now names the profile");
}

/** Appends a code cell with `code`, runs it, and returns its text output once done. */
async function runNewCell(page: Page, code: string, timeoutMs = 60_000): Promise<string> {
  const index = await page.evaluate<number>(`(() => {
    const cell = Jupyter.notebook.insert_cell_at_bottom("code");
    cell.set_text(${JSON.stringify(code)});
    cell.execute();
    return Jupyter.notebook.get_cells().indexOf(cell);
  })()`);
  await page.waitForFunction(
    `Jupyter.notebook.get_cell(${index}).input_prompt_number !== "*" && Jupyter.notebook.get_cell(${index}).input_prompt_number != null`,
    undefined,
    { timeout: timeoutMs },
  );
  return cellText(page, index);
}

async function cellText(page: Page, index: number): Promise<string> {
  return page.evaluate<string>(`Jupyter.notebook.get_cell(${index}).output_area.outputs.map((o) =>
    o.output_type === "stream" ? o.text : o.output_type === "error" ? o.ename + ": " + o.evalue : JSON.stringify(o.data || {})).join("\\n")`);
}

/** Runs the cells up to the run cell (imports, parameters, the run) without waiting for the run. */
async function startRun(page: Page): Promise<number> {
  const { run } = await cellIndexes(page);
  await page.evaluate(`Jupyter.notebook.execute_cell_range(0, ${run + 1})`);
  return run;
}

test(
  "notebook UI: Run All on smoke draws charts; Stop keeps the kernel; no server outlives Restart, Shut Down or a stopped Jupyter",
  { timeout: 1_500_000 },
  async (t) => {
    const reason = unavailable();
    if (reason) return t.skip(reason);
    fs.mkdirSync(notebookDir, { recursive: true });
    fs.copyFileSync(
      path.join(root, "notebooks", "01-index-write-cost.ipynb"),
      path.join(notebookDir, "01-index-write-cost.ipynb"),
    );
    const port = await freePort();
    const labLog = path.join(work, "lab.log");
    const logFd = fs.openSync(labLog, "a");
    lab = spawn(
      process.execPath,
      [
        path.join(root, "build", "scripts", "lab.js"),
        "--no-browser",
        "--ip=127.0.0.1",
        `--port=${port}`,
        `--NotebookApp.token=${token}`,
        `--notebook-dir=${notebookDir}`,
      ],
      {
        env: {
          ...process.env,
          DBLAB_STATE_DIR: stateDir,
          DBLAB_RESULTS_DIR: resultsDir,
          DBLAB_TARGET: "embedded",
          BROWSER: "true",
        },
        stdio: ["ignore", logFd, logFd],
        detached: true,
      },
    );
    fs.closeSync(logFd);
    const labLogTail = () => fs.readFileSync(labLog, "utf8").split("\n").slice(-30).join("\n");
    await waitFor(
      "Jupyter to listen",
      () =>
        /is running at/.test(fs.readFileSync(labLog, "utf8")) ||
        (lab?.exitCode !== null && assert.fail(`lab exited:\n${labLogTail()}`)),
      60_000,
    );

    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS], timeout: 60_000 });
    const context = await browser.newContext({ viewport: { width: 1300, height: 1000 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    // Restart asks for confirmation in a dialog of the page (not a browser dialog); Close and Halt may use one.
    page.on("dialog", (d) => void d.accept());

    await t.test("Run All on smoke: every cell ran, none errored, the charts drew", async () => {
      await openNotebook(page, port);
      await setProfile(page, "smoke");
      await page.evaluate("Jupyter.notebook.execute_all_cells()");
      await page.waitForFunction(
        `${KERNEL_IDLE} && Jupyter.notebook.get_cells().filter((c) => c.cell_type === "code").every((c) => typeof c.input_prompt_number === "number")`,
        undefined,
        { timeout: 600_000 },
      );
      const errors = await page.evaluate<
        string[]
      >(`Jupyter.notebook.get_cells().flatMap((c, i) => c.cell_type !== "code" ? [] :
      c.output_area.outputs.filter((o) => o.output_type === "error").map((o) => "cell " + i + ": " + o.ename + ": " + o.evalue))`);
      assert.deepEqual(errors, [], "no cell errored");
      const charts = await page.evaluate<{ plots: number; drawn: number }>(`(() => {
      const plots = Array.from(document.querySelectorAll(".js-plotly-plot"));
      return { plots: plots.length, drawn: plots.filter((p) => p.querySelector("svg.main-svg")).length };
    })()`);
      assert.ok(charts.plots >= 3, `notebook 01 draws at least 3 charts (found ${charts.plots})`);
      assert.equal(charts.drawn, charts.plots, "every chart drew its SVG");
      assert.deepEqual(pageErrors, [], "no page errors");
    });

    await t.test(
      "File → Download as → HTML draws its charts offline, and prints to a PDF with every chart",
      async () => {
        await page.evaluate("Jupyter.notebook.save_notebook()");
        await page.waitForFunction("!Jupyter.notebook.dirty", undefined, { timeout: 60_000 });
        // What the menu item opens: the server's nbconvert endpoint, with the lab's report template.
        const response = await page.request.get(
          `http://127.0.0.1:${port}/nbconvert/html/01-index-write-cost.ipynb?download=true&token=${token}`,
        );
        assert.equal(response.status(), 200);
        const html = path.join(work, "downloaded.html");
        fs.writeFileSync(html, await response.body());
        const text = fs.readFileSync(html, "utf8");
        assert.doesNotMatch(
          text,
          /<script[^>]+src=/i,
          "no script is loaded from elsewhere (CDN or machine-local paths)",
        );
        const check = await checkReportRenders(html, { expectCharts: 3 });
        assert.ok(check.charts >= 3, `the downloaded report has the charts (found ${check.charts})`);
        assert.equal(check.svgCharts, check.charts, "every chart drew offline");
        assert.deepEqual(check.consoleErrors, []);
        const pdf = await reportToPdf(html, path.join(work, "downloaded.pdf"));
        assert.equal(pdf.drawn, pdf.charts, "every chart drew before printing");
        assert.equal(fs.readFileSync(pdf.pdf).subarray(0, 5).toString("latin1"), "%PDF-");
      },
    );

    await t.test(
      "Stop during a default run: the run ends, the kernel keeps its variables, servers gone, trials kept",
      async () => {
        await runNewCell(page, 'const uiMarker = "still here";');
        await setProfile(page, "default");
        const before = runFolders();
        const runCell = await startRun(page);
        const servers = await waitFor(
          "an embedded server of the run",
          () => recordedProcesses().filter((p) => /PostgreSQL/.test(p.description)).length > 0 && recordedProcesses(),
          180_000,
        );
        await waitFor("a finished trial on disk", () => trialsOnDisk(1, before), 300_000);
        const stoppedAt = Date.now();
        await page.click('button[data-jupyter-action="jupyter-notebook:interrupt-kernel"]');
        await page.waitForFunction(`Jupyter.notebook.get_cell(${runCell}).input_prompt_number !== "*"`, undefined, {
          timeout: 300_000,
        });
        const output = await cellText(page, runCell);
        assert.match(
          output,
          /interrupted: \d+ of \d+ trials kept in .*resumeId/s,
          "the run cell says what was kept and how to resume",
        );
        t.diagnostic(`Stop: servers gone ${await serversGone(servers, stoppedAt)} ms after the click`);
        const kept = trialsOnDisk(1, before);
        assert.ok(kept, "the finished trials are on disk");
        // tslab drops requests that arrive within 200 ms of an error (Run All stops there); a person is slower.
        await page.waitForFunction(KERNEL_IDLE, undefined, { timeout: 60_000 });
        await page.waitForTimeout(1000);
        const marker = await runNewCell(page, "console.log(uiMarker);");
        assert.match(marker, /still here/, "a variable defined before the Stop is still there (the kernel lived)");
        assert.doesNotMatch(await page.content(), /kernel appears to have died/i);
      },
    );

    const killDuringRun = async (label: string, kill: (servers: readonly LiveProcess[]) => Promise<void>) => {
      await page.waitForFunction(KERNEL_IDLE, undefined, { timeout: 120_000 });
      await setProfile(page, "default");
      await startRun(page);
      const servers = await waitFor(
        `a server of the run before ${label}`,
        () => recordedProcesses().filter((p) => /PostgreSQL/.test(p.description)).length > 0 && recordedProcesses(),
        180_000,
      );
      const at = Date.now();
      await kill(servers);
      t.diagnostic(`${label}: servers gone ${await serversGone(servers, at)} ms after it`);
    };

    await t.test("Restart during a run: no server survives", async () => {
      await killDuringRun("Restart", async () => {
        // The Kernel menu's Restart, past its confirmation dialog.
        await page.evaluate("Jupyter.notebook.kernel.restart()");
      });
    });

    await t.test("Shut Down during a run: no server survives", async () => {
      await killDuringRun("Shut Down", async () => {
        await page.evaluate("Jupyter.notebook.kernel.kill()");
      });
      // A fresh page opens a fresh kernel for the next step.
      await openNotebook(page, port);
    });

    await t.test(
      "kill -9 of the kernel during a run: no server survives (no exit handler runs: the watcher)",
      async () => {
        await killDuringRun("kill -9", async (servers) => {
          const kernel = servers[0]?.ownerPid;
          assert.ok(kernel && kernel !== process.pid, "the kernel's pid is known from its records");
          process.kill(kernel, "SIGKILL");
        });
        // Jupyter restarts a dead kernel itself; a fresh page drops the "kernel died" dialog.
        await openNotebook(page, port);
      },
    );

    await t.test("Jupyter stopped (SIGTERM) during a run: no server survives", async () => {
      await killDuringRun("Jupyter stopped", async () => {
        assert.ok(lab?.pid);
        process.kill(lab.pid, "SIGTERM");
      });
      await waitFor("the lab to exit", () => lab?.exitCode !== null || lab?.signalCode !== null, 60_000);
    });
  },
);
