/**
 * `npm run lab [-- --port 8899 --no-browser ...]`: starts `jupyter notebook` in notebooks/ with the
 * project-local tslab kernelspec. Extra arguments go to jupyter unchanged.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ensureKernelSpec, projectRoot } from "../lib/jupyter/kernel-spec";

const JUPYTER = process.env.DBLAB_JUPYTER ?? "/usr/bin/jupyter";

function main(): void {
  const root = projectRoot();
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(
      "Usage: npm run lab -- [jupyter notebook options, e.g. --port 8899 --no-browser --ip 0.0.0.0]\n" +
        "Starts Jupyter in notebooks/ with the project's tslab kernel (TypeScript (db-write-lab)).",
    );
    return;
  }
  const jupyter = fs.existsSync(JUPYTER) ? JUPYTER : "jupyter";
  const spec = ensureKernelSpec(root);
  const resultsDir = path.join(root, "data", "results");
  fs.mkdirSync(resultsDir, { recursive: true });
  // A notebook folder of one's own (the UI test runs copies, so autosave never touches notebooks/).
  const given = args.find((a) => /^--(NotebookApp\.)?notebook[-_]dir=/.test(a));
  const notebookDir = given ? path.resolve(given.slice(given.indexOf("=") + 1)) : path.join(root, "notebooks");
  const jupyterArgs = ["notebook", ...(given ? [] : [`--notebook-dir=${notebookDir}`]), ...args];
  // File → Download as → HTML: the same offline template as `npm run reproduce`'s reports.
  const templates = path.join(root, "scripts", "report-template");
  if (!args.some((a) => a.startsWith("--HTMLExporter."))) {
    jupyterArgs.push(
      `--HTMLExporter.extra_template_paths=${JSON.stringify([templates])}`,
      "--HTMLExporter.template_file=dblab-report.html.j2",
    );
  }
  if (process.getuid?.() === 0 && !args.includes("--allow-root")) jupyterArgs.push("--allow-root");
  console.log(`Kernelspec: ${spec.kernelJson}`);
  console.log(`Starting: ${jupyter} ${jupyterArgs.join(" ")}`);
  const child = spawn(jupyter, jupyterArgs, {
    cwd: notebookDir,
    stdio: "inherit",
    env: { ...process.env, ...spec.env, DBLAB_RESULTS_DIR: process.env.DBLAB_RESULTS_DIR ?? resultsDir },
  });
  child.on("error", (err) => {
    console.error(
      `Cannot start ${jupyter}: ${err.message}. Install Jupyter: apt-get install jupyter-notebook jupyter-nbconvert python3-nbclient` +
        " (or set DBLAB_JUPYTER to a jupyter executable).",
    );
    process.exit(2);
  });
  // Ctrl-C reaches jupyter too (same process group); it asks for confirmation itself. Forward SIGTERM.
  process.on("SIGINT", () => undefined);
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  child.on("exit", (code, sig) => process.exit(code ?? (sig ? 128 + (sig === "SIGINT" ? 2 : 15) : 1)));
}

main();
