/**
 * The machine readings a refit takes from stored runs, read once: the median per command and over
 * commands, with the span over the commands (a write span only where every command read one); and a
 * write-path reading of zero, which no reference can be scaled by.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chooseReference, storedProbeReadings, storedProbes, type MachineReference } from "../../lib/experiments/eta";

const NOTEBOOK = "07-fillfactor-hot";

function storedRun(root: string, command: string, probes: unknown): void {
  const dir = path.join(root, `${command}_${NOTEBOOK}_x`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "params.json"), "{}");
  fs.writeFileSync(path.join(dir, "metadata.json"), JSON.stringify({ probes }));
}

test("stored probes: none without runs; the median and the span over commands, a write span only where each has one", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "eta-probes-"));
  try {
    assert.equal(storedProbes(NOTEBOOK, root), undefined);
    storedRun(root, "Ra", { cpuProbeSeconds: 0.04, writeProbeSeconds: 0.02 });
    storedRun(root, "Rb", { cpuProbeSeconds: 0.06, writeProbeSeconds: 0.03 });
    assert.deepEqual(storedProbes(NOTEBOOK, root), {
      readings: { cpuProbeSeconds: 0.05, writeProbeSeconds: 0.025 },
      spans: { cpu: [0.04, 0.06], write: [0.02, 0.03] },
    });
    storedRun(root, "Rc", { cpuProbeSeconds: 0.08, writeProbeSeconds: null });
    const three = storedProbes(NOTEBOOK, root);
    assert.deepEqual(three, {
      readings: { cpuProbeSeconds: 0.06, writeProbeSeconds: 0.025 },
      spans: { cpu: [0.04, 0.08] },
    });
    assert.deepEqual(storedProbeReadings(NOTEBOOK, root), three?.readings);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("a write-path probe that read zero scales nothing: the reference is read by the CPU alone", () => {
  const reference: MachineReference = {
    file: "/x/eta-reference.a.json",
    cpuModel: "CPU A",
    cpuProbeSeconds: 0.04,
    writeProbeSeconds: 0.01,
    fittedOn: "2026-12-04",
    rates: { timedPerSizeSeconds: 1e-5, overheadSeconds: 1, untimedPerSizeSeconds: 0, constantSetup: false },
    sizes: [1e6],
    constants: {},
  };
  const chosen = chooseReference([reference], { cpu: () => 0.08, write: () => 0 });
  assert.equal(chosen?.cpuFactor, 2);
  assert.equal(chosen && "writeFactor" in chosen, false);
});
