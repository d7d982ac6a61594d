import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import {
  compareToGolden,
  goldenFile,
  parseGolden,
  REPLAYED_NOTEBOOKS,
  replayNotebookOf,
  UPDATE_COMMAND,
} from "../support/replay-golden";

// Every notebook still shows what it showed: its cells replayed on a stored smoke run (no database),
// each output compared to the golden file (test/support/notebook-replay.ts, replay-golden.ts).
for (const notebook of REPLAYED_NOTEBOOKS) {
  test(`notebook ${notebook} shows what its golden file holds, replayed on its stored run`, async () => {
    const file = goldenFile(notebook);
    assert.ok(fs.existsSync(file), `${file} is missing: ${UPDATE_COMMAND} writes it`);
    const golden = parseGolden(fs.readFileSync(file, "utf8"), file);
    const transcript = await replayNotebookOf(notebook);
    assert.ok(transcript.length > 0, `${notebook}: the replay showed nothing`);
    const difference = compareToGolden(notebook, golden, transcript);
    if (difference) assert.fail(difference);
  });
}
