/**
 * Files the compiled code reads at run time, put into build/ next to it:
 * - plotly.js for the charts, gzipped and base64-encoded into build/assets (lib/display/plotly.ts
 *   inlines it once per notebook and report, and the page unpacks it). The bundle is plotly's own
 *   partial "cartesian" one (plotly.js-cartesian-dist-min, same version as plotly.js-dist): the
 *   lab's charts use only scatter, bar and box traces, all in it. Measured on 4.1.1: the full
 *   bundle minified is 4,836,431 bytes (1,971,380 gzipped + base64), the cartesian one 1,500,041
 *   (666,036); a custom build of plotly.js's own modules with only those three traces is 1,173,629
 *   (542,396) but needs plotly.js's sources and build plugins (228 packages) for 124 KB less.
 *   Gzipped, a report of the default profile is ≤ 1.5 MB with the charts still drawn offline;
 *   raw, the cartesian bundle alone would be 1.5 MB.
 * - the stand-in image's entrypoint (a shell script) next to build/lib/targets/docker/standin-image.js.
 */
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { PLOTLY_ASSET, PLOTLY_INFO } from "../lib/display/plotly";

if (process.argv.length > 2) {
  const help = process.argv[2] === "--help" || process.argv[2] === "-h";
  (help ? process.stdout : process.stderr).write(
    `${help ? "" : `build-assets: unknown argument "${process.argv[2]}"\n`}Usage: node build/scripts/build-assets.js (no options; \`npm run build\` runs it)\n`,
  );
  process.exit(help ? 0 : 2);
}

const buildRoot = path.resolve(__dirname, "..");
const sourceRoot = path.resolve(buildRoot, "..");

function buildPlotlyAsset(): void {
  const source = require.resolve("plotly.js-cartesian-dist-min/plotly-cartesian.min.js");
  const { version } = JSON.parse(
    fs.readFileSync(require.resolve("plotly.js-cartesian-dist-min/package.json"), "utf8"),
  ) as { version: string };
  const target = path.join(buildRoot, "assets", PLOTLY_ASSET);
  const stamp = `${target}.source`;
  const mark = `${source} ${fs.statSync(source).mtimeMs}`;
  if (fs.existsSync(target) && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === mark) return;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const packed = gzipSync(fs.readFileSync(source), { level: 9 }).toString("base64");
  fs.writeFileSync(target, packed);
  fs.writeFileSync(path.join(path.dirname(target), PLOTLY_INFO), JSON.stringify({ bundle: "cartesian", version }));
  fs.writeFileSync(stamp, mark);
}

buildPlotlyAsset();

/** Non-TypeScript files under lib/ that the code reads from its own folder; tsc does not copy them. */
const COPIED = ["lib/targets/docker/standin-entrypoint.sh"];
for (const file of COPIED) {
  const to = path.join(buildRoot, file);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(path.join(sourceRoot, file), to);
  fs.chmodSync(to, 0o755);
}
