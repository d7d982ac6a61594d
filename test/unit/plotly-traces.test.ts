import { test } from "node:test";
import assert from "node:assert/strict";
import { barTrace, scatterTrace } from "../../lib/display/plotly";

test("scatterTrace: type, mode, name and data first, then what `more` adds, in its order", () => {
  const t = scatterTrace("lines", "tps", [1, 2], [3, null], { line: { color: "#000" }, hovertemplate: "%{y}" });
  assert.deepEqual(Object.keys(t), ["type", "mode", "name", "x", "y", "line", "hovertemplate"]);
  assert.deepEqual(t, {
    type: "scatter",
    mode: "lines",
    name: "tps",
    x: [1, 2],
    y: [3, null],
    line: { color: "#000" },
    hovertemplate: "%{y}",
  });
});

test("scatterTrace and barTrace: without `more`, only the data; empty data stays empty", () => {
  assert.deepEqual(Object.keys(scatterTrace("markers", "", [], [])), ["type", "mode", "name", "x", "y"]);
  assert.deepEqual(barTrace("n", [], []), { type: "bar", name: "n", x: [], y: [] });
});

test("barTrace: `more` cannot move the data keys, but may override their values", () => {
  const t = barTrace("a", ["x"], [1], { marker: { color: "red" }, name: "b" });
  assert.deepEqual(Object.keys(t), ["type", "name", "x", "y", "marker"]);
  assert.equal(t.name, "b");
});
