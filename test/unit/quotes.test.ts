/**
 * The quotations claims are declared on: each notebook's quotes.json (beside its claims.ts) names
 * the text it quotes, and, where the seeds' texts are at hand (../shared/seeds beside the clone, or
 * DBLAB_SEEDS_DIR), every quoted original is found in that text, piece by piece where the quotation
 * elides with "…": a claim cannot test words the seed did not write.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(__dirname, "..", "..", "..");
const experiments = path.join(root, "lib", "experiments");

interface QuotesFile {
  /** The seed's file name in ../shared/seeds, or a description of a text not kept here (a manual's page). */
  readonly source: string;
  readonly quotes: Record<string, { original: string; translation?: string; figure?: string }>;
}

const files = fs
  .readdirSync(experiments, { withFileTypes: true })
  .filter((d) => d.isDirectory() && fs.existsSync(path.join(experiments, d.name, "quotes.json")))
  .map((d) => ({
    folder: d.name,
    file: JSON.parse(fs.readFileSync(path.join(experiments, d.name, "quotes.json"), "utf8")) as QuotesFile,
  }));

/** Whitespace and the seeds' line breaks are not part of the words. */
const words = (s: string) => s.replace(/\s+/g, "");

test("every quotes.json names its source and quotes something", () => {
  for (const { folder, file } of files) {
    assert.ok(file.source, `${folder}: source`);
    assert.ok(Object.keys(file.quotes).length > 0, `${folder}: quotes`);
    for (const [key, q] of Object.entries(file.quotes)) assert.ok(q.original.trim(), `${folder} ${key}: original`);
  }
});

test("every quoted original is in its seed's own text", (t) => {
  const dir = process.env.DBLAB_SEEDS_DIR ?? path.resolve(root, "..", "shared", "seeds");
  if (!fs.existsSync(dir)) return t.skip(`the seeds' texts are not at ${dir} (set DBLAB_SEEDS_DIR)`);
  let checked = 0;
  for (const { folder, file } of files) {
    const seed = path.join(dir, file.source);
    if (!/\.txt$/.test(file.source)) continue; // a manual's page (07): not kept here
    assert.ok(fs.existsSync(seed), `${folder}: ${file.source} is not among the seeds`);
    const text = words(fs.readFileSync(seed, "utf8"));
    for (const [key, q] of Object.entries(file.quotes))
      for (const piece of q.original.split("…").map(words).filter(Boolean)) {
        assert.ok(text.includes(piece), `${folder} quote "${key}": "${piece}" is not in ${file.source}`);
        checked++;
      }
  }
  if (!checked) t.diagnostic("no notebook quotes a seed yet");
});
