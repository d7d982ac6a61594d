/**
 * Files the compiled code reads at run time, put into build/ next to it:
 * - plotly.js minified (plotly.js-dist ships only the 10 MB unminified bundle) into build/assets, so
 *   every notebook and report inlines ~4.8 MB once instead of 10 MB;
 * - the stand-in image's entrypoint (a shell script) next to build/lib/targets/docker/standin-image.js.
 */
import fs from "node:fs";
import path from "node:path";
import { transformSync } from "esbuild";

if (process.argv.length > 2) {
  const help = process.argv[2] === "--help" || process.argv[2] === "-h";
  (help ? process.stdout : process.stderr).write(
    `${help ? "" : `build-assets: unknown argument "${process.argv[2]}"\n`}Usage: node build/scripts/build-assets.js (no options; \`npm run build\` runs it)\n`,
  );
  process.exit(help ? 0 : 2);
}

const buildRoot = path.resolve(__dirname, "..");
const sourceRoot = path.resolve(buildRoot, "..");

const source = require.resolve("plotly.js-dist/plotly.js");
const target = path.join(buildRoot, "assets", "plotly.min.js");
const stamp = `${target}.source-mtime`;
const mtime = String(fs.statSync(source).mtimeMs);
if (!fs.existsSync(target) || !fs.existsSync(stamp) || fs.readFileSync(stamp, "utf8") !== mtime) {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const { code } = transformSync(fs.readFileSync(source, "utf8"), { minify: true, legalComments: "none" });
  fs.writeFileSync(target, code);
  fs.writeFileSync(stamp, mtime);
}

/** Non-TypeScript files under lib/ that the code reads from its own folder; tsc does not copy them. */
const COPIED = ["lib/targets/docker/standin-entrypoint.sh"];
for (const file of COPIED) {
  const to = path.join(buildRoot, file);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(path.join(sourceRoot, file), to);
  fs.chmodSync(to, 0o755);
}
