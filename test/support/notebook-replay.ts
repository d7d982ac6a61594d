/**
 * Replays a notebook's code cells on a stored run, without a database: the cell that runs the trials
 * gets the stored run instead, the cell's save is left out, and every output the cells show is
 * captured (lib/display/output.ts captureOutput) into a transcript, normalised where it names this
 * machine or a random id. test/unit/notebook-replay.test.ts compares it to the golden files.
 */
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import ts from "typescript";
import * as lab from "../../lib/index";
import { type CapturedOutput, captureOutput } from "../../lib/display/output";

/** One output of one cell: `cell` counts the notebook's code cells from 0 (the import cell). */
export interface TranscriptEntry {
  readonly cell: number;
  readonly kind: CapturedOutput["kind"] | "error";
  readonly text: string;
}

/** A notebook whose cells do not have the shape the rewrites expect: the replay must not run it. */
export class ReplayShapeError extends Error {
  override readonly name = "ReplayShapeError";
}

interface NotebookFile {
  readonly cells: readonly { readonly cell_type: string; readonly source: string | readonly string[] }[];
}

/** The code cells' sources, in order. */
export function readCodeCells(notebookFile: string): string[] {
  const notebook = JSON.parse(fs.readFileSync(notebookFile, "utf8")) as NotebookFile;
  return notebook.cells
    .filter((c) => c.cell_type === "code")
    .map((c) => (typeof c.source === "string" ? c.source : c.source.join("")));
}

/** The names a cell's code sees besides its own declarations (the `with` scope below). */
const STORED_PARAMS = "__replayStoredParams";
const STORED_RUN = "__replayStoredRun";
const SCOPE = "__replayScope";

/**
 * A rewrite of the notebook's TypeScript source. Each must match exactly `expected` times over all
 * cells: a notebook whose run cell changed fails here, loudly, rather than replaying nothing.
 */
interface SourceRewrite {
  readonly what: string;
  readonly pattern: RegExp;
  readonly replacement: string;
  readonly expected: number;
}

const SOURCE_REWRITES: readonly SourceRewrite[] = [
  {
    // The parameters the stored run was run with, not the profile's today (they may have changed since).
    what: "params: lab.<notebook>.params(profile, overrides) → the stored run's params",
    pattern: /\blab\.\w+\.params\(profile, overrides\)/g,
    replacement: STORED_PARAMS,
    expected: 1,
  },
  {
    // The stored run instead of running trials: what makes the replay need no database.
    what: "run: await lab.<notebook>.run(...) → the stored run",
    pattern: /\bawait lab\.\w+\.run\([^;]*\)/g,
    replacement: STORED_RUN,
    expected: 1,
  },
  {
    // save would write a new results folder; a replay only reads. Kept as a comment: line numbers stay.
    what: "save: the line lab.<notebook>.save(run, summary, claims); dropped",
    pattern: /^\s*lab\.\w+\.save\(run, summary, claims\);\s*$/gm,
    replacement: "// save left out by the replay",
    expected: 1,
  },
];

/**
 * Top-level declarations become properties of the scope every cell runs in (`with`), so a later cell
 * sees them as Jupyter's kernel shares them. Applied to the transpiled JavaScript, where types are gone.
 */
const TOP_LEVEL_DECLARATION = /^(?:const|let|var) (\w+) =/gm;
/** What the rewrite above cannot turn into a scope property (destructuring, functions, classes). */
const UNSUPPORTED_TOP_LEVEL = /^(?:const|let|var|function|async function|class)\b.*$/m;

/** The notebook's import cell, which the replay replaces by binding `lab` to the library itself. */
const IMPORT_LAB = /^import \* as lab from "db-write-lab";$/m;

/** The code cells rewritten for the replay, as JavaScript bodies; cell 0 (the imports) is null. */
export function rewriteCells(notebookFile: string): (string | null)[] {
  const sources = readCodeCells(notebookFile);
  const name = path.basename(notebookFile);
  if (sources.length === 0 || !IMPORT_LAB.test(sources[0]) || sources[0].replace(/^import .*$/gm, "").trim())
    throw new ReplayShapeError(`${name}: its first code cell is not only the imports of db-write-lab`);
  const rewritten = [...sources];
  for (const rewrite of SOURCE_REWRITES) {
    let matched = 0;
    for (let i = 1; i < rewritten.length; i++) {
      rewritten[i] = rewritten[i].replace(rewrite.pattern, () => {
        matched++;
        return rewrite.replacement;
      });
    }
    if (matched !== rewrite.expected)
      throw new ReplayShapeError(
        `${name}: the rewrite "${rewrite.what}" matched ${matched} time(s), not ${rewrite.expected}: ` +
          "the notebook's cells changed shape; change test/support/notebook-replay.ts to match them",
      );
  }
  return rewritten.map((source, i) => {
    if (i === 0) return null;
    if (/^import /m.test(source)) throw new ReplayShapeError(`${name}: code cell ${i} imports; only cell 0 may`);
    const js = ts
      .transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
        reportDiagnostics: false,
      })
      .outputText.replace(/^"use strict";\n?/, "")
      .replace(TOP_LEVEL_DECLARATION, `${SCOPE}.$1 =`);
    const unsupported = UNSUPPORTED_TOP_LEVEL.exec(js);
    if (unsupported)
      throw new ReplayShapeError(`${name}: code cell ${i} declares what the replay cannot share: ${unsupported[0]}`);
    return js;
  });
}

/** What a notebook's namespace offers the replay: its identity and `open` (lib/experiments/define.ts). */
interface Openable {
  readonly registered: { readonly slug: string };
  readonly open: (ref: string) => { readonly params: unknown };
}
const isOpenable = (x: unknown): x is Openable =>
  typeof x === "object" && x !== null && "open" in x && "registered" in x && typeof x.open === "function";

/**
 * The stored run as the notebook's `run(...)` returned it: read by the notebook's own `open`, from the run's
 * files and the extras.json its workload kept, so the replay sees what a reader who opens the run sees.
 */
function storedRun(notebookFile: string, runDirectory: string): { params: unknown; run: unknown } {
  const slug = path.basename(notebookFile, ".ipynb");
  const namespace = Object.values(lab).find((x) => isOpenable(x) && x.registered.slug === slug);
  if (!isOpenable(namespace)) throw new Error(`no notebook namespace in the lab has the slug ${slug}`);
  const run = namespace.open(runDirectory);
  return { params: run.params, run };
}

/** plotly.js as setupCharts inlines it: gzipped by the building Node's zlib, then base64. */
const INLINED_PLOTLY = /atob\("([A-Za-z0-9+/=]{1000,})"\)/g;

function plotlyDigest(base64: string): string {
  try {
    const bundle = gunzipSync(Buffer.from(base64, "base64"));
    return `<gzipped plotly.js, sha256 ${createHash("sha256").update(bundle).digest("hex").slice(0, 16)}>`;
  } catch {
    return base64; // not gzip: left as it is, so a change shows
  }
}

/**
 * What of an output depends on where or when it was replayed, each replaced by a fixed token:
 * - chart ids: lib/display/plotly.ts draws each chart's id at random;
 * - the run's folder: it is the fixture's absolute path, which differs by checkout;
 * - the checkout the run was made in, before the project's example files (06's schema and data):
 *   the stored run names its own clone's absolute path, which a refreshed fixture would change;
 * - the inlined plotly.js: its gzip bytes depend on the zlib of the Node that built the assets
 *   (and its OS byte), so it stands as the digest of the bundle it unpacks to.
 */
export function normaliseOutput(text: string, runDirectory: string): string {
  return text
    .split(path.resolve(runDirectory))
    .join("<run-directory>")
    .replace(/dblab-chart-[0-9a-f]+/g, "dblab-chart-<id>")
    .replace(/(?:\/[\w.-]+)+\/(?=data\/examples\/)/g, "<checkout>/")
    .replace(INLINED_PLOTLY, (_, base64: string) => `atob("${plotlyDigest(base64)}")`);
}

function outputText(output: CapturedOutput): string {
  return output.kind === "bundle" ? JSON.stringify(output.bundle) : output.content;
}

/**
 * Runs the notebook's code cells in order on the stored run in `runDirectory`, each inside
 * captureOutput. A cell that throws is an entry of kind "error" (its message's first line), as the
 * notebook would show it; the cells after it still run, as a reader running on would see them.
 */
export async function replayNotebook(notebookFile: string, runDirectory: string): Promise<TranscriptEntry[]> {
  const cells = rewriteCells(notebookFile);
  const { params, run } = storedRun(notebookFile, path.resolve(runDirectory));
  const scope: Record<string, unknown> = { lab, [STORED_PARAMS]: params, [STORED_RUN]: run };
  scope[SCOPE] = scope;
  const transcript: TranscriptEntry[] = [];
  for (const [cell, js] of cells.entries()) {
    if (js === null) continue;
    // Sloppy-mode Function: `with` gives every cell the one shared scope, as the kernel's globals are.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- running the notebook's code is the point
    const body = new Function(SCOPE, `with (${SCOPE}) { return (async () => {\n${js}\n})(); }`) as (
      s: Record<string, unknown>,
    ) => Promise<unknown>;
    // The error is the cell's result, so the outputs it showed before it failed are kept.
    const { result: error, outputs } = await captureOutput(() =>
      body(scope).then(
        () => undefined,
        (e: unknown) => e ?? "undefined thrown",
      ),
    );
    for (const output of outputs)
      transcript.push({ cell, kind: output.kind, text: normaliseOutput(outputText(output), runDirectory) });
    if (error !== undefined) {
      const message = error instanceof Error ? error.message : JSON.stringify(error);
      transcript.push({ cell, kind: "error", text: normaliseOutput(message.split("\n")[0], runDirectory) });
    }
  }
  return transcript;
}
