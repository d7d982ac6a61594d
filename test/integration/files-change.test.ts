// test-tier: shared — one Jupyter kernel on a fixture notebook
/**
 * Files the kernel's type checker read change on disk while a cell runs: `npm ci` (which removes
 * node_modules and makes it again), `npm run build` or `git pull` beside an overnight run. tslab
 * watches every file and folder its type checker looked at and keeps one pending rebuild: a second
 * kind of change before the next cell threw "Unexpected pending rebuildTimer" from the watcher, an
 * uncaught exception that ended the running cell. Measured: a 03 run at `full` ended 5 min in, in its
 * load, when the project's node_modules was hard-linked elsewhere (each file's link count, so its
 * ctime, changed). The kernel preload (lib/jupyter/kernel-preload.ts) turns tslab's watching off.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describeFailure, executeNotebook, jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { projectRoot } from "../../lib/jupyter/kernel-spec";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-files-change-test-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Output {
  output_type: string;
  text?: string | string[];
  evalue?: string;
}

test(
  "node_modules removed and made again during a cell, a source it imports rewritten: the cell and the next one run",
  { timeout: 300_000 },
  async (t) => {
    const missing = jupyterUnavailableReason();
    if (missing) {
      t.skip(`Jupyter not available: ${missing}`);
      return;
    }
    // A project around the notebook: notebooks/ beside a node_modules with one type root.
    const notebooks = path.join(dir, "notebooks");
    const types = path.join(dir, "node_modules", "@types", "fixture");
    fs.mkdirSync(notebooks, { recursive: true });
    fs.mkdirSync(types, { recursive: true });
    fs.writeFileSync(path.join(types, "package.json"), JSON.stringify({ name: "@types/fixture", version: "1.0.0" }));
    fs.writeFileSync(path.join(types, "index.d.ts"), "declare const fixtureGlobal: number;\n");
    const fixture = path.join(projectRoot(), "test", "fixtures", "files-change");
    for (const name of ["files-change.ipynb", "watched.ts"]) {
      fs.copyFileSync(path.join(fixture, name), path.join(notebooks, name));
    }
    const outputIpynb = path.join(notebooks, "files-change.out.ipynb");
    const result = await executeNotebook({
      notebook: path.join(notebooks, "files-change.ipynb"),
      outputIpynb,
      profile: "smoke",
      overrides: {},
      cellTimeoutSec: 240,
    });
    assert.equal(result.status, "ok", result.failure ? describeFailure(result.failure) : result.message);
    assert.match(
      fs.readFileSync(path.join(notebooks, "watched.ts"), "utf8"),
      /changed 9/,
      "the cell changed its files",
    );
    const cells = (JSON.parse(fs.readFileSync(outputIpynb, "utf8")) as { cells: { outputs: Output[] }[] }).cells;
    const text = (outputs: Output[]) => outputs.map((o) => [o.text ?? "", o.evalue ?? ""].flat().join("")).join("");
    // cells: the parameters, the injected parameters, the changing cell, the next.
    assert.doesNotMatch(text(cells[2].outputs), /UncaughtException|rebuildTimer/);
    assert.match(text(cells[2].outputs), /the cell that changed its files ended/);
    assert.match(text(cells[3].outputs), /the next cell ran: marker 7/);
  },
);
