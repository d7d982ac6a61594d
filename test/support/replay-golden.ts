/**
 * The golden files of the notebook replay (test/fixtures/replay/golden/<notebook>.txt): the whole
 * transcript is too large to commit, so each output is a line with its digest, length and first
 * characters, and a line of its pieces' short digests that places a difference past those characters.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { type TranscriptEntry, replayNotebook } from "./notebook-replay";
import { EXPERIMENTS } from "../../lib/experiments/registry";

export const PROJECT_ROOT = path.resolve(__dirname, "..", "..", "..");
export const REPLAY_FIXTURES = path.join(PROJECT_ROOT, "test", "fixtures", "replay");
export const GOLDEN_DIR = path.join(REPLAY_FIXTURES, "golden");
export const UPDATE_COMMAND = "npm run test:replay-update";
/**
 * The notebooks replayed: every registered one that runs trials (00 reads other runs), found in the registry as
 * reproduce finds them, so a new notebook's test fails until its stored smoke run is in test/fixtures/replay/.
 */
export const REPLAYED_NOTEBOOKS: readonly string[] = EXPERIMENTS.filter((e) => !e.requires).map((e) => e.slug);

/** Characters of an output kept as they are; an output this short is kept whole. */
const PREFIX_CHARS = 160;
/** Characters per piece digest: a difference past the prefix is placed within this many. */
const PIECE_CHARS = 128;

export interface GoldenEntry {
  readonly cell: number;
  readonly kind: string;
  readonly sha: string;
  readonly length: number;
  readonly prefix: string;
  readonly pieces: readonly string[];
}

const sha256 = (text: string, hexChars: number): string =>
  createHash("sha256").update(text).digest("hex").slice(0, hexChars);

export function goldenEntry(entry: TranscriptEntry): GoldenEntry {
  const pieces: string[] = [];
  if (entry.text.length > PREFIX_CHARS)
    for (let at = 0; at < entry.text.length; at += PIECE_CHARS)
      pieces.push(sha256(entry.text.slice(at, at + PIECE_CHARS), 6));
  return {
    cell: entry.cell,
    kind: entry.kind,
    sha: sha256(entry.text, 16),
    length: entry.text.length,
    prefix: entry.text.slice(0, PREFIX_CHARS),
    pieces,
  };
}

export const replayNotebookOf = (notebook: string): Promise<TranscriptEntry[]> =>
  replayNotebook(path.join(PROJECT_ROOT, "notebooks", `${notebook}.ipynb`), path.join(REPLAY_FIXTURES, notebook));

export const goldenFile = (notebook: string): string => path.join(GOLDEN_DIR, `${notebook}.txt`);

/** The golden file's text: a header, then per output a line and, for a long one, its pieces' line. */
export function formatGolden(notebook: string, transcript: readonly TranscriptEntry[]): string {
  const lines = [
    `# What notebooks/${notebook}.ipynb shows, replayed on test/fixtures/replay/${notebook}: per output its code`,
    `# cell, kind, sha256 (16 hex) of the normalised text, length and first ${PREFIX_CHARS} characters (JSON), then the`,
    `# sha256 (6 hex) of each ${PIECE_CHARS} characters. Written by \`${UPDATE_COMMAND}\`; not edited by hand.`,
  ];
  for (const e of transcript.map(goldenEntry)) {
    lines.push([e.cell, e.kind, e.sha, e.length, JSON.stringify(e.prefix)].join("\t"));
    if (e.pieces.length > 0) lines.push(`\tpieces\t${e.pieces.join(" ")}`);
  }
  return `${lines.join("\n")}\n`;
}

export function parseGolden(text: string, file: string): GoldenEntry[] {
  const entries: GoldenEntry[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line === "" || line.startsWith("#")) continue;
    const fields = line.split("\t");
    const last = entries.at(-1);
    if (fields[0] === "" && fields[1] === "pieces" && last) {
      entries[entries.length - 1] = { ...last, pieces: fields[2].split(" ") };
      continue;
    }
    const [cell, kind, sha, length, prefix] = fields;
    if (fields.length !== 5 || !/^\d+$/.test(cell) || !/^\d+$/.test(length))
      throw new Error(`${file}:${i + 1}: not a golden line (run ${UPDATE_COMMAND} to write it again)`);
    entries.push({
      cell: Number(cell),
      kind: kind,
      sha: sha,
      length: Number(length),
      prefix: JSON.parse(prefix) as string,
      pieces: [],
    });
  }
  return entries;
}

/** Text shown in a message: quoted as JSON, so newlines and spaces are visible. */
const quoted = (text: string): string => JSON.stringify(text);
const CONTEXT_CHARS = 40;

/** Where two outputs with the same start first differ, as far as the golden entry can tell. */
function firstDifference(golden: GoldenEntry, live: GoldenEntry, liveText: string): string {
  const prefixLength = Math.min(golden.prefix.length, live.prefix.length);
  let at = 0;
  while (at < prefixLength && golden.prefix[at] === live.prefix[at]) at++;
  if (at < prefixLength || golden.prefix.length !== live.prefix.length) {
    const from = Math.max(0, at - CONTEXT_CHARS);
    return (
      `first difference at character ${at}: golden …${quoted(golden.prefix.slice(from, at + CONTEXT_CHARS))}… ` +
      `vs live …${quoted(live.prefix.slice(from, at + CONTEXT_CHARS))}…`
    );
  }
  const piece = golden.pieces.findIndex((p, i) => p !== live.pieces[i]);
  const index = piece === -1 ? Math.min(golden.pieces.length, live.pieces.length) : piece;
  const start = index * PIECE_CHARS;
  return (
    `the first ${PREFIX_CHARS} characters agree; the first difference is within characters ${start}–` +
    `${start + PIECE_CHARS - 1}; live there (with ${CONTEXT_CHARS} before): ` +
    `…${quoted(liveText.slice(Math.max(0, start - CONTEXT_CHARS), start + PIECE_CHARS))}…`
  );
}

const describe = (e: GoldenEntry): string =>
  `${quoted(e.prefix)}${e.length > e.prefix.length ? "…" : ""} (${e.length} characters, sha256 ${e.sha})`;

/** The first output where the live transcript differs from the golden one, as a message; undefined when none. */
export function compareToGolden(
  notebook: string,
  golden: readonly GoldenEntry[],
  transcript: readonly TranscriptEntry[],
): string | undefined {
  const live = transcript.map(goldenEntry);
  const update = `If the change is intended, run \`${UPDATE_COMMAND}\` and review the golden files' diff.`;
  for (let i = 0; i < Math.max(golden.length, live.length); i++) {
    const g = golden[i];
    const l = live[i];
    const where = (e: GoldenEntry): string =>
      `notebook ${notebook}, code cell ${e.cell}, output ${i + 1} of ${Math.max(golden.length, live.length)} (${e.kind})`;
    if (!g && l)
      return `${where(l)}: an output the golden file does not have (it ends at output ${golden.length})\n  live:   ${describe(l)}\n${update}`;
    if (g && !l)
      return `${where(g)}: the replay showed no such output (it ended at output ${live.length})\n  golden: ${describe(g)}\n${update}`;
    if (!g || !l || (g.cell === l.cell && g.kind === l.kind && g.sha === l.sha)) continue;
    const what =
      g.cell !== l.cell || g.kind !== l.kind
        ? `golden has code cell ${g.cell} (${g.kind}) here, the replay code cell ${l.cell} (${l.kind})`
        : "the output changed";
    return [
      `${where(l)}: ${what}`,
      `  golden: ${describe(g)}`,
      `  live:   ${describe(l)}`,
      `  ${firstDifference(g, l, transcript[i].text)}`,
      update,
    ].join("\n");
  }
  return undefined;
}
