/**
 * The seeds cited: every published figure names its seed readably, the README and each notebook's
 * introduction carry the same citation as lib/results/seeds.ts, and, where the seeds' texts are at
 * hand (../shared/seeds beside the clone, or DBLAB_SEEDS_DIR), every title, author, year and address
 * cited is found in the seed's own text: nothing is cited that the text does not say.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { citationText, NOT_NAMED, SEEDS } from "../../lib/results/seeds";
import { publishedFigures } from "../../lib/results/reference";
import { EXPERIMENTS } from "../../lib/experiments/registry";

const root = path.resolve(__dirname, "..", "..", "..");

test("every published figure names its seed by title, author, publication, year and URL", () => {
  const figures = publishedFigures();
  assert.ok(figures.length > 0);
  for (const f of figures)
    assert.match(f.source, /title: .*; author: .*; publication: .*; year: .*; URL: /, f.seedFile);
  assert.deepEqual([...new Set(figures.map((f) => f.seedFile))].sort(), SEEDS.map((s) => s.file).sort());
});

test("the README and each notebook's introduction cite their seed as lib/results/seeds.ts does", () => {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  for (const seed of SEEDS) {
    assert.ok(readme.includes(`- ${citationText(seed)}\n`), `README cites ${seed.file}`);
    const entry = EXPERIMENTS.find((e) => e.id === seed.notebook);
    assert.ok(entry, `notebook ${seed.notebook}`);
    const nb = JSON.parse(fs.readFileSync(path.join(root, entry.file), "utf8")) as {
      cells: { cell_type: string; source: string[] }[];
    };
    const intro = nb.cells.find((c) => c.cell_type === "markdown")?.source.join("") ?? "";
    assert.ok(intro.includes(`**The seed.** ${citationText(seed)}\n`), `${entry.file}'s introduction cites its seed`);
  }
});

test("every cited title, author, year and address is in the seed's own text", (t) => {
  const dir = process.env.DBLAB_SEEDS_DIR ?? path.resolve(root, "..", "shared", "seeds");
  if (!fs.existsSync(dir)) return t.skip(`the seeds' texts are not at ${dir} (set DBLAB_SEEDS_DIR)`);
  for (const seed of SEEDS) {
    const text = fs.readFileSync(path.join(dir, seed.file), "utf8");
    const quoted = (field: string) => /"([^"]+)"/.exec(field)?.[1];
    // A named field's first part (before its parenthesis), or what it quotes, must be in the text.
    for (const field of [seed.title, seed.author]) {
      if (field === NOT_NAMED) continue;
      const cited = field.startsWith(NOT_NAMED) ? quoted(field) : field.split(" (")[0];
      if (cited && !field.includes("the original's address reads"))
        assert.ok(text.includes(cited), `${seed.file}: "${cited}"`);
    }
    const dates = /\d{4}\/\d{2}\/\d{2}/.exec(seed.year)?.[0];
    if (seed.year !== NOT_NAMED) assert.ok(dates && text.includes(dates), `${seed.file}: year ${seed.year}`);
    if (seed.url !== NOT_NAMED) assert.ok(text.includes(seed.url), `${seed.file}: ${seed.url}`);
    const slug = /the original's address reads "([^"]+)"/.exec(seed.title)?.[1];
    if (slug) assert.ok(seed.url.includes(slug) && text.includes(slug), `${seed.file}: ${slug}`);
    const repo = /github\.com\/([\w.-]+\/[\w.-]+)/.exec(seed.code ?? "")?.[1];
    if (repo && !seed.code?.includes("not in the text")) assert.ok(text.includes(repo), `${seed.file}: ${repo}`);
  }
});
