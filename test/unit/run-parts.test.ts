/**
 * A resumed run writes its metadata.json anew; what its earlier parts recorded (when they started,
 * their ETA and outcome, 03's 36-minute load at the seed's scale) is kept in `earlierParts`, so the
 * ETA of the next resume still reads that load and the report says the run came in parts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RunStore } from "../../lib/results/run-store";
import { partsOf, type RunMetadata } from "../../lib/results/metadata";
import { partsText } from "../../lib/display/run-header";
import { storedLoads } from "../../lib/experiments/over-indexing/eta";

const PARAMS = { dataScale: 1 };

function inRoot(body: (root: string) => void): void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-parts-"));
  try {
    body(root);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function part(startedAt: string, extra: object = {}): object {
  return { runId: "x", startedAt, gitCommit: "abc", ...extra };
}

test("a new run has no earlier parts; each resume keeps the ones before it, oldest first, flattened", () => {
  inRoot((root) => {
    const first = RunStore.open({ notebook: "03-over-indexing", params: PARAMS, root });
    assert.deepEqual(first.earlierParts, []);
    first.writeMetadata(part("T1", { template: { loadSeconds: { stock: 2146 } } }));
    first.updateMetadata({ finishedAt: "T1e", outcome: "interrupted" });

    // The second part died before its servers started: it wrote no metadata, so it adds nothing.
    const second = RunStore.open({ notebook: "03-over-indexing", params: PARAMS, root, resumeId: first.runId });
    assert.deepEqual(
      second.earlierParts.map((p) => p.startedAt),
      ["T1"],
    );
    const third = RunStore.open({ notebook: "03-over-indexing", params: PARAMS, root, resumeId: first.runId });
    third.writeMetadata({ ...part("T3"), earlierParts: third.earlierParts });
    third.updateMetadata({ finishedAt: "T3e", outcome: "interrupted" });

    const fourth = RunStore.open({ notebook: "03-over-indexing", params: PARAMS, root, resumeId: first.runId });
    assert.deepEqual(
      fourth.earlierParts.map((p) => [p.startedAt, p.outcome]),
      [
        ["T1", "interrupted"],
        ["T3", "interrupted"],
      ],
    );
    // Flattened: a part does not carry the parts before it.
    assert.equal(
      fourth.earlierParts.some((p) => "earlierParts" in p),
      false,
    );
  });
});

test("an unreadable metadata.json is not a part", () => {
  inRoot((root) => {
    const first = RunStore.open({ notebook: "n", params: PARAMS, root });
    fs.writeFileSync(path.join(first.directory, "metadata.json"), "{torn");
    const again = RunStore.open({ notebook: "n", params: PARAMS, root, resumeId: first.runId });
    assert.deepEqual(again.earlierParts, []);
  });
});

test("partsOf: the current part first, then the earlier ones newest first; not an object, no parts", () => {
  const meta = { startedAt: "T3", earlierParts: [{ startedAt: "T1" }, { startedAt: "T2" }, 7] };
  assert.deepEqual(
    partsOf(meta).map((p) => p.startedAt),
    ["T3", "T2", "T1"],
  );
  assert.deepEqual(partsOf(null), []);
  assert.deepEqual(partsOf({ a: 1 }), [{ a: 1 }]);
});

test("03's stored loads: a load an earlier part finished counts after a resume overwrote the metadata", () => {
  inRoot((root) => {
    const dir = path.join(root, "R1_03-over-indexing_aaaa");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "params.json"), JSON.stringify(PARAMS));
    const load = { template: { loadSeconds: { products: 237, stock: 1878, movements: 31 } } };
    // Resumed twice: the first part loaded, the second was stopped mid-load, the third runs now.
    fs.writeFileSync(
      path.join(dir, "metadata.json"),
      JSON.stringify({ startedAt: "T3", earlierParts: [{ startedAt: "T1", ...load }, { startedAt: "T2" }] }),
    );
    const stored = { root, notebook: "03-over-indexing" };
    assert.deepEqual(storedLoads(stored), [{ size: 1, seconds: 2146 }]);
    // Once the current part has loaded too, both loads are samples.
    fs.writeFileSync(
      path.join(dir, "metadata.json"),
      JSON.stringify({ startedAt: "T3", template: { loadSeconds: { stock: 2000 } }, earlierParts: [load] }),
    );
    assert.deepEqual(storedLoads(stored), [
      { size: 1, seconds: 2000 },
      { size: 1, seconds: 2146 },
    ]);
  });
});

test("the report's header line: each earlier part's start, end and ETA; none for a run in one part", () => {
  const base = { runId: "r", notebook: "03-over-indexing", profile: "full", startedAt: "T3" } as RunMetadata;
  assert.equal(partsText(base), undefined);
  const text = partsText({
    ...base,
    earlierParts: [
      {
        startedAt: "T1",
        finishedAt: "T1e",
        outcome: "interrupted",
        eta: "about 3 h 26 min here; resumable with npm run reproduce -- --resume r",
      },
      { startedAt: "T2" },
    ],
  });
  assert.equal(
    text,
    "Resumed: part 1 started T1, interrupted T1e (ETA then: about 3 h 26 min here); " +
      "part 2 started T2, no recorded end (its process died); this is part 3.",
  );
});
