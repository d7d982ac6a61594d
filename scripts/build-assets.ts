/**
 * Minifies plotly.js (plotly.js-dist ships only the 10 MB unminified bundle) into build/assets, so
 * every notebook and report inlines ~4.8 MB once instead of 10 MB.
 */
import fs from "node:fs";
import path from "node:path";
import { transformSync } from "esbuild";

const source = require.resolve("plotly.js-dist/plotly.js");
const target = path.resolve(__dirname, "..", "assets", "plotly.min.js");
const stamp = `${target}.source-mtime`;
const mtime = String(fs.statSync(source).mtimeMs);
if (!fs.existsSync(target) || !fs.existsSync(stamp) || fs.readFileSync(stamp, "utf8") !== mtime) {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const { code } = transformSync(fs.readFileSync(source, "utf8"), { minify: true, legalComments: "none" });
  fs.writeFileSync(target, code);
  fs.writeFileSync(stamp, mtime);
}
