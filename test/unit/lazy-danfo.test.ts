/**
 * danfojs-node (with @tensorflow/tfjs) is loaded only when a frame is asked for: importing the lab,
 * and showing tables of rows, leave it out of the process (lib/display/table.ts says why).
 */
import { test } from "node:test";
import assert from "node:assert/strict";

const danfoModules = (): string[] => Object.keys(require.cache).filter((k) => /[\\/]danfojs-(node|base)[\\/]/.test(k));

test("importing the lab and drawing a table of rows does not load danfojs-node; lab.frame does", async () => {
  assert.deepEqual(danfoModules(), [], "nothing loaded danfo before the test");
  const lab = await import("../../lib/index");
  const { tableHtml } = await import("../../lib/display/table");
  const html = tableHtml([
    { a: 1, b: "x" },
    { b: "y", c: true },
  ]);
  assert.match(html, /<th>a<\/th><th>b<\/th><th>c<\/th>/);
  assert.match(html, /<tr><td><\/td><td>y<\/td><td>true<\/td><\/tr>/, "a key missing from a row is an empty cell");
  assert.deepEqual(danfoModules(), [], "lib/index and a table of rows loaded danfo");
  const df = lab.frame({ runId: "r", notebook: "01", trials: [] });
  assert.deepEqual(df.columns, []);
  assert.ok(danfoModules().length > 0, "lab.frame loads danfo");
});
