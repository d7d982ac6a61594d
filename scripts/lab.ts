/**
 * `npm run lab [-- --port 8899 --no-browser ...]`: starts `jupyter notebook` in notebooks/ with the
 * project-local kernelspec (lib/jupyter/kernel-spec.ts). Extra arguments go to jupyter unchanged.
 * `npm run lab -- --install-kernel` (`npm run kernel:install`) instead installs the kernelspec
 * "db-write-lab" for the user, so notebooks in any folder, in any Jupyter front end, can use the lab;
 * `--uninstall-kernel` removes it.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {
  ensureKernelSpec,
  installKernelSpec,
  KERNEL_DISPLAY_NAME,
  KERNEL_NAME,
  projectRoot,
  uninstallKernelSpec,
  userJupyterDataDir,
} from "../lib/jupyter/kernel-spec";

const JUPYTER = process.env.DBLAB_JUPYTER ?? "/usr/bin/jupyter";

function main(): void {
  const root = projectRoot();
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(
      "Usage: npm run lab -- [jupyter notebook options, e.g. --port 8899 --no-browser --ip 0.0.0.0]\n" +
        `Starts Jupyter in notebooks/ with the project's tslab kernel (${KERNEL_DISPLAY_NAME}).\n` +
        "       npm run lab -- --install-kernel     (npm run kernel:install)\n" +
        `Installs the kernelspec "${KERNEL_NAME}" into your Jupyter data folder (JUPYTER_DATA_DIR honoured), so a\n` +
        'notebook in any folder, in Jupyter or VS Code, can `import * as lab from "db-write-lab"`.\n' +
        "       npm run lab -- --uninstall-kernel   (npm run kernel:uninstall)\n" +
        "Removes it (only a kernelspec the lab wrote). See docs/kernel.md.",
    );
    return;
  }
  if (args.includes("--install-kernel") || args.includes("--uninstall-kernel")) {
    if (args.length !== 1) {
      console.error(`${args.join(" ")}: --install-kernel and --uninstall-kernel take no other arguments`);
      process.exit(2);
    }
    if (args[0] === "--install-kernel") {
      const kernelJson = installKernelSpec(userJupyterDataDir(), root);
      console.log(`Installed the kernel "${KERNEL_DISPLAY_NAME}" (${KERNEL_NAME}): ${kernelJson}`);
      console.log('In a notebook of your own, choose that kernel and start with: import * as lab from "db-write-lab";');
    } else {
      let removed: string | undefined;
      try {
        removed = uninstallKernelSpec(userJupyterDataDir());
      } catch (e) {
        console.error(e instanceof Error ? e.message : String(e));
        process.exit(1);
      }
      console.log(removed ? `Removed ${removed}` : `No kernelspec "${KERNEL_NAME}" in ${userJupyterDataDir()}`);
    }
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
