import { test } from "node:test";
import assert from "node:assert/strict";
import {
  INJECTED_TAG,
  injectParameters,
  NotebookParametersError,
  type NotebookJson,
} from "../../lib/jupyter/inject-parameters";

function notebook(minor = 5): NotebookJson {
  return {
    nbformat: 4,
    nbformat_minor: minor,
    metadata: { kernelspec: { name: "tslab", display_name: "TypeScript (db-write-lab)", language: "typescript" } },
    cells: [
      { cell_type: "markdown", id: "intro", metadata: {}, source: ["# Title\n", "text"] },
      {
        cell_type: "code",
        id: "imports",
        metadata: {},
        source: 'import { x } from "../build/lib";',
        outputs: [],
        execution_count: null,
      },
      {
        cell_type: "code",
        id: "params",
        metadata: { tags: ["parameters"] },
        source: ['let profile: ProfileName = "default";\n', "let overrides: Partial<P> = {};"],
        outputs: [],
        execution_count: null,
      },
      {
        cell_type: "code",
        id: "run",
        metadata: {},
        source: "run(profile, overrides);",
        outputs: [],
        execution_count: null,
      },
    ],
  };
}

test("inserts an injected-parameters cell right after the parameters cell", () => {
  const nb = notebook();
  const out = injectParameters(nb, "smoke", { rowCounts: [1000, 2000], target: "embedded" });
  assert.equal(out.cells.length, 5);
  const cell = out.cells[3];
  assert.equal(cell.cell_type, "code");
  assert.deepEqual(cell.metadata?.tags, [INJECTED_TAG]);
  assert.equal(cell.source, 'profile = "smoke";\noverrides = {"rowCounts":[1000,2000],"target":"embedded"};');
  assert.deepEqual(cell.outputs, []);
  assert.equal(cell.execution_count, null);
  assert.equal(cell.id, "injected-parameters");
  assert.equal(out.cells[4].id, "run");
});

test("does not modify its input", () => {
  const nb = notebook();
  const before = JSON.stringify(nb);
  injectParameters(nb, "full", { seed: 7 });
  assert.equal(JSON.stringify(nb), before);
});

test("injects even with no overrides (the report shows what ran)", () => {
  const out = injectParameters(notebook(), "default", {});
  assert.equal(out.cells[3].source, 'profile = "default";\noverrides = {};');
});

test("replaces an injected cell left by an earlier run", () => {
  const once = injectParameters(notebook(), "smoke", { a: 1 });
  const twice = injectParameters(once, "full", { b: 2 });
  const injected = twice.cells.filter((c) => c.metadata?.tags?.includes(INJECTED_TAG));
  assert.equal(injected.length, 1);
  assert.equal(injected[0].source, 'profile = "full";\noverrides = {"b":2};');
  assert.equal(twice.cells.length, 5);
});

test("escapes strings safely (JSON is valid TypeScript)", () => {
  const out = injectParameters(notebook(), "smoke", { label: 'a "quoted"\nvalue' });
  assert.equal(out.cells[3].source, 'profile = "smoke";\noverrides = {"label":"a \\"quoted\\"\\nvalue"};');
});

test("no cell id for nbformat < 4.5 notebooks", () => {
  const nb = notebook(4);
  for (const c of nb.cells) delete c.id;
  const out = injectParameters(nb, "smoke", {});
  assert.equal("id" in out.cells[3], false);
});

test("a unique id if 'injected-parameters' is taken", () => {
  const nb = notebook();
  nb.cells[0].id = "injected-parameters";
  const out = injectParameters(nb, "smoke", {});
  assert.equal(out.cells[3].id, "injected-parameters-2");
});

test("throws a clear error when no cell is tagged parameters", () => {
  const nb = notebook();
  nb.cells[2].metadata = {};
  assert.throws(
    () => injectParameters(nb, "smoke", {}, "01-index-write-cost.ipynb"),
    (e: unknown) =>
      e instanceof NotebookParametersError &&
      /01-index-write-cost\.ipynb: no code cell is tagged "parameters"/.test(e.message),
  );
});

test("a markdown cell tagged parameters does not count", () => {
  const nb = notebook();
  nb.cells[2].metadata = {};
  nb.cells[0].metadata = { tags: ["parameters"] };
  assert.throws(() => injectParameters(nb, "smoke", {}), NotebookParametersError);
});

test("throws when more than one cell is tagged parameters", () => {
  const nb = notebook();
  nb.cells[1].metadata = { tags: ["parameters"] };
  assert.throws(() => injectParameters(nb, "smoke", {}), /2 code cells are tagged "parameters" \(cells 1, 2\)/);
});

test("throws on something that is not a notebook", () => {
  assert.throws(() => injectParameters({} as NotebookJson, "smoke", {}), /not a notebook/);
});
