/**
 * `npm run test:replay-update`: replays every notebook on its stored run and writes its golden file,
 * for a change of what a notebook shows that is meant; the golden files' diff then shows in review
 * which outputs changed. A cell that fails is refused: a golden file never records an error.
 */
import fs from "node:fs";
import path from "node:path";
import {
  formatGolden,
  goldenFile,
  GOLDEN_DIR,
  PROJECT_ROOT,
  REPLAYED_NOTEBOOKS,
  replayNotebookOf,
} from "./replay-golden";

async function main(): Promise<number> {
  fs.mkdirSync(GOLDEN_DIR, { recursive: true });
  let status = 0;
  for (const notebook of REPLAYED_NOTEBOOKS) {
    const transcript = await replayNotebookOf(notebook);
    const errors = transcript.filter((e) => e.kind === "error");
    if (errors.length > 0) {
      status = 1;
      for (const e of errors) console.error(`${notebook}: code cell ${e.cell} failed: ${e.text}`);
      console.error(`${notebook}: golden file not written`);
      continue;
    }
    const file = goldenFile(notebook);
    const text = formatGolden(notebook, transcript);
    const before = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
    fs.writeFileSync(file, text);
    const state = before === undefined ? "written" : before === text ? "unchanged" : "updated";
    console.log(`${path.relative(PROJECT_ROOT, file)}: ${transcript.length} outputs, ${state}`);
  }
  return status;
}

main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
