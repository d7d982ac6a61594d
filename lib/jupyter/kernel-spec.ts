/**
 * A project-local Jupyter kernelspec for tslab, so nothing global is installed and the kernel
 * always runs this project's tslab (library code's `require("tslab")` must resolve to the same
 * module instance as the kernel for `tslab.display` to reach the notebook).
 *
 * Written to `<project>/.jupyter-runtime/share/jupyter/kernels/tslab/kernel.json`; the returned
 * env puts `<project>/.jupyter-runtime/share/jupyter` first on JUPYTER_PATH.
 */
import fs from "node:fs";
import path from "node:path";

/** Kernel name used in every notebook's metadata.kernelspec.name. */
export const KERNEL_NAME = "tslab";
export const KERNEL_DISPLAY_NAME = "TypeScript (db-write-lab)";

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

/** Writes (or refreshes) the kernelspec and returns the environment that makes Jupyter find it. */
export function ensureKernelSpec(root: string = projectRoot()): KernelSpecInfo {
  const tslabBin = path.join(root, "node_modules", "tslab", "bin", "tslab");
  if (!fs.existsSync(tslabBin)) {
    throw new Error(`tslab is not installed (${tslabBin} is missing); run \`npm ci\` in ${root}`);
  }
  const runtime = path.join(root, ".jupyter-runtime");
  const dataDir = path.join(runtime, "share", "jupyter");
  const specDir = path.join(dataDir, "kernels", KERNEL_NAME);
  const kernelJson = path.join(specDir, "kernel.json");
  // Same argv as `tslab install` (tslab/python/install.py), but with absolute paths: this node
  // binary runs this project's tslab, so neither `tslab` nor `node` has to be on PATH.
  const spec = {
    // -r: one ZeroMQ send at a time, or a burst of output fails its cell (see kernel-preload.ts).
    argv: [
      process.execPath,
      "-r",
      path.join(__dirname, "kernel-preload.js"),
      tslabBin,
      "kernel",
      "--config-path",
      "{connection_file}",
    ],
    display_name: KERNEL_DISPLAY_NAME,
    language: "typescript",
    // Tells the lab it runs in a kernel: SIGINT is the Stop button (ends the run, not the kernel),
    // and a watcher process stops the kernel's servers if the kernel is killed.
    env: { DBLAB_IN_KERNEL: "1" },
  };
  const text = JSON.stringify(spec, null, 1) + "\n";
  fs.mkdirSync(specDir, { recursive: true });
  if (!fs.existsSync(kernelJson) || fs.readFileSync(kernelJson, "utf8") !== text) {
    fs.writeFileSync(kernelJson, text);
  }
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
