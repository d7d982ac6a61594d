import { test } from "node:test";
import assert from "node:assert/strict";
import {
  axis,
  chartBundle,
  COLOR,
  errorBars,
  intervalBars,
  PALETTE,
  PLOTLY_MIME,
  titledFigure,
  type PlotlySpec,
} from "../../lib/display/plotly";

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

test("an axis starts from zero unless told otherwise, its title first", () => {
  assert.equal(JSON.stringify(axis("rows")), '{"title":{"text":"rows"},"rangemode":"tozero"}');
  assert.equal(JSON.stringify(axis("rows", {})), '{"title":{"text":"rows"}}');
  assert.equal(JSON.stringify(axis("", { type: "log" })), '{"title":{"text":""},"type":"log"}');
});

test("a titled figure's layout starts with its title, whatever the layout holds", () => {
  const figure = titledFigure("t", { barmode: "group", yaxis: axis("s") }, []);
  assert.deepEqual(figure.data, []);
  assert.equal(
    JSON.stringify(figure.layout),
    '{"title":{"text":"t"},"barmode":"group","yaxis":{"title":{"text":"s"},"rangemode":"tozero"}}',
  );
  assert.equal(JSON.stringify(titledFigure("", {}, []).layout), '{"title":{"text":""}}');
});

test("interval bars reach from the estimate to each end, and are zero without an interval", () => {
  assert.deepEqual(intervalBars([]), errorBars([], []));
  assert.deepEqual(
    intervalBars([{ estimate: 2, low: 1.5, high: 3 }, undefined, { estimate: 1, low: 1, high: 1 }]),
    errorBars([1, 0, 0], [0.5, 0, 0]),
  );
});

test("the palette is the named colours in order", () => {
  assert.equal(PALETTE.length, 7);
  assert.deepEqual([PALETTE[0], PALETTE[3], PALETTE[6]], [COLOR.blue, COLOR.red, COLOR.brown]);
});
