import { test } from "node:test";
import assert from "node:assert/strict";
import { tableHtml } from "../../lib/display/table";

test("tables keep columns aligned when rows have different keys", () => {
  const html = tableHtml([
    { a: 1, b: "x" },
    { a: 2, c: 3, b: "y" },
  ]);
  assert.match(html, /<th>a<\/th><th>b<\/th><th>c<\/th>/);
  assert.match(html, /<tr><td[^>]*>2<\/td><td>y<\/td><td[^>]*>3<\/td><\/tr>/);
});

test("table cells are escaped", () => {
  assert.match(tableHtml([{ name: "<script>" }]), /&lt;script&gt;/);
});
