import { test } from "node:test";
import assert from "node:assert/strict";
import { chartBundle, PLOTLY_MIME, type PlotlySpec } from "../../lib/display/plotly";

test("a chart is one output with plotly's figure and its offline HTML", () => {
  const bundle = chartBundle(
    {
      data: [{ type: "bar", x: ["a", "b"], y: [1, Number.NaN], hovertext: undefined }],
      layout: { title: { text: "t" } },
    },
    300,
  );
  assert.deepEqual(Object.keys(bundle).sort(), [PLOTLY_MIME, "text/html"]);
  const spec = bundle[PLOTLY_MIME] as PlotlySpec;
  // What Jupyter stores: plain JSON (NaN becomes null, undefined keys are dropped), not a string.
  assert.deepEqual(spec.data, [{ type: "bar", x: ["a", "b"], y: [1, null] }]);
  assert.equal(spec.layout.height, 300);
  assert.deepEqual(spec.layout.title, { text: "t" });
  assert.equal(spec.config.displaylogo, false);
  const html = bundle["text/html"] as string;
  assert.match(html, /class="dblab-chart"/);
  assert.match(html, /Plotly\.newPlot/);
  // The HTML draws the same figure.
  const inline = /var spec=(\{.*?\});var tries/.exec(html)?.[1] ?? "";
  assert.deepEqual(JSON.parse(inline), spec);
});
