/**
 * The lab's kernelspec "db-write-lab" (a global tslab owns "tslab"): this project's tslab with the
 * preload, project-local or installed for the user; `db-write-lab` resolves from any folder (docs/kernel.md).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const KERNEL_NAME = "db-write-lab";
export const KERNEL_DISPLAY_NAME = "TypeScript (db-write-lab)";
/** `import * as lab from "db-write-lab"` (package.json "name"). */
export const PACKAGE_NAME = "db-write-lab";

/** The nearest ancestor holding package.json (works from lib/ and build/lib/). */
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
  readonly specDir: string;
  readonly kernelJson: string;
  readonly env: Record<string, string>;
}

export function modulePathDir(root: string = projectRoot()): string {
  return path.join(root, ".jupyter-runtime", "node-path");
}

function ensureModuleLink(root: string): string {
  const dir = modulePathDir(root);
  const link = path.join(dir, PACKAGE_NAME);
  fs.mkdirSync(dir, { recursive: true });
  let current: string | undefined;
  try {
    current = fs.readlinkSync(link);
  } catch {
    current = undefined;
  }
  if (current !== root) {
    fs.rmSync(link, { recursive: true, force: true });
    // "junction": what Windows allows without privileges.
    fs.symlinkSync(root, link, "junction");
  }
  return dir;
}

export function kernelSpecJson(root: string = projectRoot()): Record<string, unknown> {
  const tslabBin = path.join(root, "node_modules", "tslab", "bin", "tslab");
  if (!fs.existsSync(tslabBin)) {
    throw new Error(`tslab is not installed (${tslabBin} is missing); run \`npm ci\` in ${root}`);
  }
  const preload = path.join(__dirname, "kernel-preload.js");
  return {
    // `tslab install`'s argv with absolute paths: this node runs this project's tslab, so `require("tslab")`
    // in library code is the kernel's own module. -r: the preload (kernel-preload.ts).
    argv: [process.execPath, "-r", preload, tslabBin, "kernel", "--config-path", "{connection_file}"],
    display_name: KERNEL_DISPLAY_NAME,
    language: "typescript",
    env: {
      // SIGINT is the Stop button (ends the run, not the kernel); a watcher stops the servers if the kernel is killed.
      DBLAB_IN_KERNEL: "1",
      NODE_PATH: ensureModuleLink(root),
    },
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

/** Writes the project-local kernelspec; returns the environment that makes Jupyter find it. */
export function ensureKernelSpec(root: string = projectRoot()): KernelSpecInfo {
  const runtime = path.join(root, ".jupyter-runtime");
  const dataDir = path.join(runtime, "share", "jupyter");
  const specDir = path.join(dataDir, "kernels", KERNEL_NAME);
  const kernelJson = writeSpec(specDir, kernelSpecJson(root));
  // The spec under the old name: the same display name twice, and notebooks saved with it would start it.
  fs.rmSync(path.join(dataDir, "kernels", "tslab"), { recursive: true, force: true });
  const runtimeDir = path.join(runtime, "runtime");
  fs.mkdirSync(runtimeDir, { recursive: true });
  const existing = process.env.JUPYTER_PATH;
  return {
    specDir,
    kernelJson,
    env: {
      JUPYTER_PATH: existing ? `${dataDir}${path.delimiter}${existing}` : dataDir,
      JUPYTER_RUNTIME_DIR: runtimeDir,
    },
  };
}

/** The user's Jupyter data folder by jupyter_core's rules (VS Code reads it without a jupyter command). */
export function userJupyterDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.JUPYTER_DATA_DIR) return path.resolve(env.JUPYTER_DATA_DIR);
  const home = env.HOME ?? os.homedir();
  if (process.platform === "darwin") return path.join(home, "Library", "Jupyter");
  if (process.platform === "win32") return path.join(env.APPDATA ?? path.join(home, "AppData", "Roaming"), "jupyter");
  return path.join(env.XDG_DATA_HOME ?? path.join(home, ".local", "share"), "jupyter");
}

export function installKernelSpec(dataDir: string = userJupyterDataDir(), root: string = projectRoot()): string {
  return writeSpec(path.join(dataDir, "kernels", KERNEL_NAME), kernelSpecJson(root));
}

/** Removes the installed kernelspec if it is the lab's; another kernelspec of that name is refused. */
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
