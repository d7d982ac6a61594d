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
import { has, readCommandArgs, refuse, UsageError, type OptionSpec } from "./cli-args";
import { errorMessage } from "../lib/runtime/error-message";

const JUPYTER = process.env.DBLAB_JUPYTER ?? "/usr/bin/jupyter";

const USAGE = `Usage: npm run lab -- [jupyter notebook options] [-- options passed unchecked]

Starts Jupyter in notebooks/ with the project's tslab kernel (TypeScript (db-write-lab)).
Jupyter's own options go to it unchanged, e.g. --port 8899 --no-browser --ip 0.0.0.0
--notebook-dir DIR, and any --Class.trait=value (--NotebookApp.token=…). An option Jupyter
does not know is refused here, before anything starts; after \`--\` nothing is checked.

       npm run lab -- --install-kernel     (npm run kernel:install)
Installs the kernelspec "db-write-lab" into your Jupyter data folder (JUPYTER_DATA_DIR honoured),
so a notebook in any folder, in Jupyter or VS Code, can \`import * as lab from "db-write-lab"\`.
       npm run lab -- --uninstall-kernel   (npm run kernel:uninstall)
Removes it (only a kernelspec the lab wrote). See docs/kernel.md.`;

/**
 * The flags and options of \`jupyter notebook --help\` (Notebook 6.4): the ones a user types. A
 * misspelt one is refused with exit 2 here, before the kernelspec is written and Jupyter starts
 * (Jupyter itself would start, log "Unrecognized flag" and exit 1).
 */
const JUPYTER_FLAGS = [
  "debug",
  "show-config",
  "show-config-json",
  "generate-config",
  "no-browser",
  "pylab",
  "no-mathjax",
  "allow-root",
  "autoreload",
  "script",
  "no-script",
] as const;
const JUPYTER_VALUES = [
  "log-level",
  "config",
  "ip",
  "port",
  "port-retries",
  "sock",
  "sock-mode",
  "transport",
  "keyfile",
  "certfile",
  "client-ca",
  "notebook-dir",
  "browser",
  "gateway-url",
] as const;
const LAB_OPTIONS: Record<string, OptionSpec> = {
  help: { type: "boolean", short: "h" },
  "install-kernel": { type: "boolean" },
  "uninstall-kernel": { type: "boolean" },
  ...Object.fromEntries(JUPYTER_FLAGS.map((f) => [f, { type: "boolean" } as const])),
  ...Object.fromEntries(JUPYTER_VALUES.map((f) => [f, { type: "string" } as const])),
};
/** `--NotebookApp.token=…`: a configurable trait, which Jupyter checks itself. */
const TRAIT = /^--[A-Za-z]\w*(\.\w+)+(=|$)/;

/** The arguments for Jupyter, or "help"; throws UsageError for an option Jupyter does not have. */
export function parseLabArgs(argv: readonly string[]): readonly string[] | "help" {
  const end = argv.indexOf("--");
  const checked = end < 0 ? argv : argv.slice(0, end);
  // --pylab takes an optional value; both spellings are Jupyter's.
  const parsed = readCommandArgs(
    checked.filter((a) => !TRAIT.test(a) && !a.startsWith("--pylab=")),
    LAB_OPTIONS,
  );
  if (has(parsed, "help")) return "help";
  return end < 0 ? argv : [...checked, ...argv.slice(end + 1)];
}

function main(): void {
  const root = projectRoot();
  let args: readonly string[];
  try {
    const parsed = parseLabArgs(process.argv.slice(2));
    if (parsed === "help") {
      console.log(USAGE);
      return;
    }
    args = parsed;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.exit(refuse("lab", e));
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
        console.error(errorMessage(e));
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

if (require.main === module) main();
