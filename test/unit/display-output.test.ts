import { test } from "node:test";
import assert from "node:assert/strict";
import { noteHtml } from "../../lib/display/output";

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
