/**
 * The lab's Jupyter kernelspec: this project's tslab, started with the lab's preload, with
 * `import * as lab from "db-write-lab"` resolving to this project from a notebook in any folder.
 *
 * Two places hold it:
 * - project-local (`ensureKernelSpec`, what `npm run lab` and `npm run reproduce` use):
 *   `<project>/.jupyter-runtime/share/jupyter/kernels/db-write-lab/`, found through JUPYTER_PATH,
 *   so nothing outside the project is written;
 * - the user's Jupyter data folder (`installKernelSpec`, `npm run kernel:install`), where the
 *   Notebook UI, JupyterLab and VS Code's Jupyter all look, so a notebook created anywhere can
 *   choose "TypeScript (db-write-lab)".
 * The name is "db-write-lab", not "tslab": a globally installed tslab owns that name, and a notebook
 * saved with it would open in that kernel, which cannot find the lab.
 *
 * How `db-write-lab` resolves: through the kernel's module path, not package self-reference.
 * Self-reference (package.json `exports` naming itself) works only for a file inside the package
 * folder; a notebook in ~/my-notes is not. So the kernelspec's `env` sets NODE_PATH to
 * `<project>/.jupyter-runtime/node-path/`, which holds one link, `db-write-lab` → the project
 * (Node reads NODE_PATH after every node_modules folder above the notebook, so a real installation
 * beside a notebook still wins). tslab's type checker (TypeScript's Node10 resolution) ignores
 * NODE_PATH; kernel-preload.ts makes it look there too, as tslab itself does for `import "tslab"`.
 * The link, not NODE_PATH=<the project's parent>, because the project folder need not be named
 * db-write-lab.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Kernel name used in every notebook's metadata.kernelspec.name. */
export const KERNEL_NAME = "db-write-lab";
export const KERNEL_DISPLAY_NAME = "TypeScript (db-write-lab)";
/** The name notebooks import: `import * as lab from "db-write-lab"` (package.json "name"). */
export const PACKAGE_NAME = "db-write-lab";

/** The project root: the nearest ancestor of this file holding package.json (works from lib/ and build/lib/). */
export function projectRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, "package.json")) && fs.existsSync(path.join(dir, "node_modules"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`Cannot find the project root (package.json) above ${__dirname}`);
    dir = parent;
  }
}

export interface KernelSpecInfo {
  /** The folder holding kernel.json. */
  readonly specDir: string;
  readonly kernelJson: string;
  /** Variables to add to the environment of jupyter / nbclient (JUPYTER_PATH, JUPYTER_RUNTIME_DIR). */
  readonly env: Record<string, string>;
}

/** The folder on the kernel's NODE_PATH: it holds `db-write-lab`, a link to the project. */
export function modulePathDir(root: string = projectRoot()): string {
  return path.join(root, ".jupyter-runtime", "node-path");
}

/** Creates (or repoints) `<project>/.jupyter-runtime/node-path/db-write-lab` → the project. */
function ensureModuleLink(root: string): string {
  const dir = modulePathDir(root);
  const link = path.join(dir, PACKAGE_NAME);
  fs.mkdirSync(dir, { recursive: true });
  let current: string | undefined;
  try {
    current = fs.readlinkSync(link);
  } catch {
    current = undefined; // absent (or not a link: rmSync below replaces it)
  }
  if (current !== root) {
    fs.rmSync(link, { recursive: true, force: true });
    // "junction" is what Windows allows without privileges; elsewhere the type is ignored.
    fs.symlinkSync(root, link, "junction");
  }
  return dir;
}

/** kernel.json's content for this project (the same for the project-local and the installed spec). */
export function kernelSpecJson(root: string = projectRoot()): Record<string, unknown> {
  const tslabBin = path.join(root, "node_modules", "tslab", "bin", "tslab");
  if (!fs.existsSync(tslabBin)) {
    throw new Error(`tslab is not installed (${tslabBin} is missing); run \`npm ci\` in ${root}`);
  }
  const preload = path.join(__dirname, "kernel-preload.js");
  return {
    // Same argv as `tslab install` (tslab/python/install.py), but with absolute paths: this node
    // binary runs this project's tslab, so neither `tslab` nor `node` has to be on PATH, and library
    // code's `require("tslab")` is the kernel's own module (else `tslab.display` reaches no notebook).
    // -r: one ZeroMQ send at a time, or a burst of output fails its cell (see kernel-preload.ts).
    argv: [process.execPath, "-r", preload, tslabBin, "kernel", "--config-path", "{connection_file}"],
    display_name: KERNEL_DISPLAY_NAME,
    language: "typescript",
    env: {
      // Tells the lab it runs in a kernel: SIGINT is the Stop button (ends the run, not the kernel),
      // and a watcher process stops the kernel's servers if the kernel is killed.
      DBLAB_IN_KERNEL: "1",
      // `import … from "db-write-lab"` from any folder (see the top of this file).
      NODE_PATH: ensureModuleLink(root),
    },
    // Lets --uninstall-kernel tell the lab's spec from another one of the same name.
    metadata: { "db-write-lab": { project: root } },
  };
}

function writeSpec(specDir: string, spec: Record<string, unknown>): string {
  const kernelJson = path.join(specDir, "kernel.json");
  const text = JSON.stringify(spec, null, 1) + "\n";
  fs.mkdirSync(specDir, { recursive: true });
  if (!fs.existsSync(kernelJson) || fs.readFileSync(kernelJson, "utf8") !== text) fs.writeFileSync(kernelJson, text);
  return kernelJson;
}

/** Writes (or refreshes) the project-local kernelspec and returns the environment that makes Jupyter find it. */
export function ensureKernelSpec(root: string = projectRoot()): KernelSpecInfo {
  const runtime = path.join(root, ".jupyter-runtime");
  const dataDir = path.join(runtime, "share", "jupyter");
  const specDir = path.join(dataDir, "kernels", KERNEL_NAME);
  const kernelJson = writeSpec(specDir, kernelSpecJson(root));
  // The spec this folder held under the old name: the same display name twice in the kernel menu,
  // and notebooks saved with it would start it instead of this one.
  fs.rmSync(path.join(dataDir, "kernels", "tslab"), { recursive: true, force: true });
  const runtimeDir = path.join(runtime, "runtime");
  fs.mkdirSync(runtimeDir, { recursive: true });
  const existing = process.env.JUPYTER_PATH;
  return {
    specDir,
    kernelJson,
    env: {
      JUPYTER_PATH: existing ? `${dataDir}${path.delimiter}${existing}` : dataDir,
      // Connection files of our kernels stay in the project, not in ~/.local/share.
      JUPYTER_RUNTIME_DIR: runtimeDir,
    },
  };
}

/**
 * The user's Jupyter data folder, by jupyter_core's rules (`jupyter --data-dir`): JUPYTER_DATA_DIR,
 * else ~/Library/Jupyter (macOS), %APPDATA%\jupyter (Windows), $XDG_DATA_HOME/jupyter or
 * ~/.local/share/jupyter. Computed here rather than asked of `jupyter`, because VS Code's Jupyter
 * reads kernelspecs from there without any jupyter command installed.
 */
export function userJupyterDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.JUPYTER_DATA_DIR) return path.resolve(env.JUPYTER_DATA_DIR);
  const home = env.HOME ?? os.homedir();
  if (process.platform === "darwin") return path.join(home, "Library", "Jupyter");
  if (process.platform === "win32") return path.join(env.APPDATA ?? path.join(home, "AppData", "Roaming"), "jupyter");
  return path.join(env.XDG_DATA_HOME ?? path.join(home, ".local", "share"), "jupyter");
}

/** Installs the kernelspec into the user's Jupyter data folder; returns the kernel.json written. */
export function installKernelSpec(dataDir: string = userJupyterDataDir(), root: string = projectRoot()): string {
  return writeSpec(path.join(dataDir, "kernels", KERNEL_NAME), kernelSpecJson(root));
}

/**
 * Removes the installed kernelspec if it is the lab's (its metadata names a db-write-lab project);
 * returns the folder removed, or undefined when there was none. Another kernelspec of that name is
 * refused rather than removed.
 */
export function uninstallKernelSpec(dataDir: string = userJupyterDataDir()): string | undefined {
  const specDir = path.join(dataDir, "kernels", KERNEL_NAME);
  const kernelJson = path.join(specDir, "kernel.json");
  if (!fs.existsSync(kernelJson)) return undefined;
  let spec: { metadata?: Record<string, unknown> };
  try {
    spec = JSON.parse(fs.readFileSync(kernelJson, "utf8")) as typeof spec;
  } catch (e) {
    throw new Error(`${kernelJson} is not readable JSON; remove ${specDir} yourself if it is not wanted`, { cause: e });
  }
  if (!spec.metadata?.["db-write-lab"]) {
    throw new Error(`${kernelJson} was not written by the lab (no metadata."db-write-lab"); left in place`);
  }
  fs.rmSync(specDir, { recursive: true, force: true });
  return specDir;
}
