// test-tier: shared — a Jupyter kernel from a kernelspec in its own JUPYTER_DATA_DIR, 01 on smoke embedded
/**
 * The lab from a notebook outside the project: `npm run lab -- --install-kernel` installs the
 * kernelspec "db-write-lab" (here into a temporary JUPYTER_DATA_DIR, so the user's own is
 * untouched), and nbclient runs a copy of notebook 01, in a temporary folder outside the repository,
 * on the smoke profile with that kernelspec alone: `import * as lab from "db-write-lab"` must
 * type-check and run there, and the run must record its trials. Then --uninstall-kernel removes it.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findPython, jupyterUnavailableReason } from "../../lib/jupyter/execute";
import { injectParameters, type NotebookJson } from "../../lib/jupyter/inject-parameters";
import { KERNEL_NAME, projectRoot } from "../../lib/jupyter/kernel-spec";

const root = projectRoot();
const work = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-kernel-test-"));
after(() => {
  if (!process.env.DBLAB_KEEP_TEST_OUTPUT) fs.rmSync(work, { recursive: true, force: true });
});

/** The environment of a Jupyter that knows only the user's data folder: no project-local spec. */
function userJupyterEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, JUPYTER_DATA_DIR: dataDir };
  delete env.JUPYTER_PATH;
  delete env.NODE_PATH;
  env.JUPYTER_RUNTIME_DIR = path.join(work, "runtime");
  return env;
}

function lab(args: string[], env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(root, "build", "scripts", "lab.js"), ...args], {
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test(
  "a copy of notebook 01 outside the repository runs on smoke with the installed kernelspec",
  { timeout: 900_000 },
  async (t) => {
    const missing = jupyterUnavailableReason();
    if (missing) return t.skip(`Jupyter not available: ${missing}`);
    const dataDir = path.join(work, "jupyter-data");
    const env = userJupyterEnv(dataDir);

    const installed = lab(["--install-kernel"], env);
    assert.equal(installed.status, 0, installed.stderr);
    const kernelJson = path.join(dataDir, "kernels", KERNEL_NAME, "kernel.json");
    assert.ok(fs.existsSync(kernelJson), `${kernelJson} written`);
    // Jupyter itself lists it (the same lookup the Notebook UI and VS Code's Jupyter do).
    const python = findPython();
    const listed = spawnSync(
      python,
      [
        "-c",
        "import json; from jupyter_client.kernelspec import KernelSpecManager as K; print(json.dumps(K().find_kernel_specs()))",
      ],
      { env, encoding: "utf8" },
    );
    assert.equal(listed.status, 0, listed.stderr);
    assert.equal((JSON.parse(listed.stdout) as Record<string, string>)[KERNEL_NAME], path.dirname(kernelJson));

    const folder = path.join(work, "my-notes");
    fs.mkdirSync(folder);
    assert.ok(path.relative(root, folder).startsWith(".."), `${folder} is outside the repository`);
    const source = JSON.parse(
      fs.readFileSync(path.join(root, "notebooks", "01-index-write-cost.ipynb"), "utf8"),
    ) as NotebookJson;
    const imports = source.cells.map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source)).join("\n");
    assert.match(imports, /from "db-write-lab"/, "notebook 01 imports the lab by name");
    const notebook = path.join(folder, "my-01.ipynb");
    fs.writeFileSync(notebook, JSON.stringify(injectParameters(source, "smoke", {}, "my-01.ipynb"), null, 1));

    const resultsDir = path.join(work, "results");
    const output = path.join(folder, "my-01.out.ipynb");
    const runner = spawn(
      python,
      [path.join(root, "scripts", "execute_notebook.py"), notebook, "--output", output, "--kernel", KERNEL_NAME],
      {
        cwd: folder,
        env: { ...env, DBLAB_TARGET: "embedded", DBLAB_RESULTS_DIR: resultsDir, DBLAB_RUN_ID: "kernel-test" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    runner.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    runner.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => runner.on("close", resolve));
    const errors = stdout.split("\n").filter((l) => l.includes('"event": "error"') || l.includes('"event": "fatal"'));
    assert.equal(code, 0, `${errors.join("\n")}\n${stderr.slice(-2000)}`);

    const executed = JSON.parse(fs.readFileSync(output, "utf8")) as {
      cells: { cell_type: string; outputs?: { output_type: string }[] }[];
    };
    const errorOutputs = executed.cells.flatMap((c) => c.outputs ?? []).filter((o) => o.output_type === "error");
    assert.deepEqual(errorOutputs, [], "no cell failed");
    const runs = fs.readdirSync(resultsDir).filter((d) => d.startsWith("kernel-test"));
    assert.equal(runs.length, 1, "one results folder");
    assert.ok(fs.statSync(path.join(resultsDir, runs[0], "trials.jsonl")).size > 0, "trials recorded");

    const removed = lab(["--uninstall-kernel"], env);
    assert.equal(removed.status, 0, removed.stderr);
    assert.ok(!fs.existsSync(path.dirname(kernelJson)), "--uninstall-kernel removed the kernelspec");
  },
);

test("--uninstall-kernel leaves a kernelspec of that name the lab did not write", () => {
  const dataDir = path.join(work, "foreign-data");
  const specDir = path.join(dataDir, "kernels", KERNEL_NAME);
  fs.mkdirSync(specDir, { recursive: true });
  fs.writeFileSync(path.join(specDir, "kernel.json"), JSON.stringify({ argv: ["x"], display_name: "someone else's" }));
  const r = lab(["--uninstall-kernel"], userJupyterEnv(dataDir));
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /not written by the lab/);
  assert.ok(fs.existsSync(path.join(specDir, "kernel.json")));
});
