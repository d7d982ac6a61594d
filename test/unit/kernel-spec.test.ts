/**
 * The installable kernelspec at its margins: where it goes (jupyter_core's rules), what it holds
 * (this node, the preload, NODE_PATH with a `db-write-lab` link to the project), and that uninstall
 * removes only a spec the lab wrote. The notebook actually running from another folder is
 * test/integration/kernel-install.test.ts.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  installKernelSpec,
  KERNEL_NAME,
  PACKAGE_NAME,
  projectRoot,
  uninstallKernelSpec,
  userJupyterDataDir,
} from "../../lib/jupyter/kernel-spec";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-kernel-spec-"));
after(() => fs.rmSync(work, { recursive: true, force: true }));

test("the user's Jupyter data folder follows jupyter_core: JUPYTER_DATA_DIR, then the platform's", () => {
  assert.equal(userJupyterDataDir({ JUPYTER_DATA_DIR: "rel/dir", HOME: "/h" }), path.resolve("rel/dir"));
  if (process.platform === "linux") {
    assert.equal(userJupyterDataDir({ HOME: "/h", XDG_DATA_HOME: "/x" }), "/x/jupyter");
    assert.equal(userJupyterDataDir({ HOME: "/h" }), "/h/.local/share/jupyter");
  }
});

test("install writes a spec that runs this project's tslab with the preload and the lab on NODE_PATH", () => {
  const dataDir = path.join(work, "data");
  const kernelJson = installKernelSpec(dataDir);
  assert.equal(kernelJson, path.join(dataDir, "kernels", KERNEL_NAME, "kernel.json"));
  const spec = JSON.parse(fs.readFileSync(kernelJson, "utf8")) as {
    argv: string[];
    env: Record<string, string>;
    metadata: Record<string, { project: string }>;
  };
  const root = projectRoot();
  assert.equal(spec.argv[0], process.execPath);
  assert.deepEqual(spec.argv.slice(1, 2), ["-r"]);
  assert.ok(fs.existsSync(spec.argv[2]) && spec.argv[2].endsWith("kernel-preload.js"), spec.argv[2]);
  assert.equal(spec.argv[3], path.join(root, "node_modules", "tslab", "bin", "tslab"));
  assert.ok(spec.argv.includes("{connection_file}"));
  assert.equal(spec.env.DBLAB_IN_KERNEL, "1");
  const link = path.join(spec.env.NODE_PATH, PACKAGE_NAME);
  assert.equal(fs.realpathSync(link), fs.realpathSync(root), "NODE_PATH/db-write-lab is the project");
  const pkg = JSON.parse(fs.readFileSync(path.join(link, "package.json"), "utf8")) as { name: string; main: string };
  assert.equal(pkg.name, PACKAGE_NAME);
  assert.equal(pkg.main, "build/lib/index.js");
  assert.equal(spec.metadata["db-write-lab"].project, root);

  assert.equal(uninstallKernelSpec(dataDir), path.dirname(kernelJson));
  assert.ok(!fs.existsSync(path.dirname(kernelJson)));
  assert.equal(uninstallKernelSpec(dataDir), undefined, "nothing to remove the second time");
});

test("uninstall refuses a spec of that name the lab did not write, and leaves it", () => {
  const dataDir = path.join(work, "foreign");
  const specDir = path.join(dataDir, "kernels", KERNEL_NAME);
  fs.mkdirSync(specDir, { recursive: true });
  fs.writeFileSync(path.join(specDir, "kernel.json"), JSON.stringify({ argv: ["x"], display_name: "other" }));
  assert.throws(() => uninstallKernelSpec(dataDir), /not written by the lab/);
  fs.writeFileSync(path.join(specDir, "kernel.json"), "{ not json");
  assert.throws(() => uninstallKernelSpec(dataDir), /not readable JSON/);
  assert.ok(fs.existsSync(path.join(specDir, "kernel.json")));
});
