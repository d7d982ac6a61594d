import { test } from "node:test";
import assert from "node:assert/strict";
import { captureOutput, liveOutput, noteHtml, show, showBundle } from "../../lib/display/output";

test("a note is a div with a coloured left bar, its margin only when given", () => {
  assert.equal(
    noteHtml("<b>x</b>", "#e45756", "#fdf2f2"),
    '<div style="border-left:4px solid #e45756;padding:6px 10px;background:#fdf2f2"><b>x</b></div>',
  );
  assert.equal(
    noteHtml("", "#4c78a8", "#f6f8fb", "6px 0"),
    '<div style="border-left:4px solid #4c78a8;padding:6px 10px;background:#f6f8fb;margin:6px 0"></div>',
  );
  assert.equal(
    noteHtml("a", "red", "white", ""),
    '<div style="border-left:4px solid red;padding:6px 10px;background:white">a</div>',
  );
});

test("captureOutput collects show, liveOutput and showBundle in call order and returns the result", async () => {
  const { result, outputs } = await captureOutput(async () => {
    show().html("<b>table</b>");
    await new Promise((resolve) => setTimeout(resolve, 1));
    const live = liveOutput();
    live.text("1 of 2");
    live.markdown("**2 of 2**");
    showBundle({ "text/plain": "chart", "application/json": { x: [1] } });
    return 42;
  });
  assert.equal(result, 42);
  assert.deepEqual(outputs, [
    { kind: "html", content: "<b>table</b>" },
    { kind: "text", content: "1 of 2" },
    { kind: "markdown", content: "**2 of 2**" },
    { kind: "bundle", bundle: { "text/plain": "chart", "application/json": { x: [1] } } },
  ]);
});

test("captures running at once keep their own outputs, and output after a capture is not captured", async () => {
  const showAfter = async (label: string, ms: number): Promise<void> => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    show().text(label);
  };
  const [a, b] = await Promise.all([
    captureOutput(async () => {
      await showAfter("a1", 5);
      await showAfter("a2", 1);
    }),
    captureOutput(() => showAfter("b1", 2)),
  ]);
  assert.deepEqual(
    a.outputs.map((o) => (o.kind === "text" ? o.content : o.kind)),
    ["a1", "a2"],
  );
  assert.deepEqual(
    b.outputs.map((o) => (o.kind === "text" ? o.content : o.kind)),
    ["b1"],
  );
  // Outside a capture and a tslab kernel, html goes nowhere: nothing of it reaches the lists above.
  show().html("<i>after</i>");
  assert.equal(a.outputs.length + b.outputs.length, 3);
});

test("an error inside captureOutput is thrown as it is", async () => {
  const cause = new Error("cell failed");
  await assert.rejects(
    captureOutput(() => Promise.reject(cause)),
    (e) => e === cause,
  );
});
