/**
 * The no-stored-runs ETA at its margins: reference files (each machine's rates with its probe
 * readings) checked as they are read, one of this CPU model else the nearest one chosen by the probes,
 * its write-bound part scaled by the write-path probe (bounded by the CPU probe's where that reads slower)
 * and its overhead by the CPU probe, CPU only (said so) where the reference has no write-path reading;
 * the write-path reading of spread rounds on synthetic series.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  chooseReference,
  EtaReferenceError,
  outsideTrials,
  parseReference,
  probeCalibration,
  probeFactor,
  referenceConstant,
  referenceFileContent,
  referencesIn,
  referenceText,
  storedProbeReadings,
  WRITE_OVER_CPU_MAX,
  writeBoundFactor,
  writeProbeIn,
  type MachineReference,
  type Probes,
  type ReferenceRates,
} from "../../lib/experiments/eta";

const RATES: ReferenceRates = {
  timedPerSizeSeconds: 1e-5,
  overheadSeconds: 1,
  untimedPerSizeSeconds: 1e-6,
  constantSetup: false,
  kinds: { pass: { size: 1e6, seconds: 10, exponent: 1.2, untimedSeconds: 3 } },
};

const reference = (over: Partial<MachineReference> = {}): MachineReference => ({
  file: "/x/eta-reference.a.json",
  cpuModel: "CPU A",
  cpuProbeSeconds: 0.04,
  writeProbeSeconds: 0.01,
  fittedOn: "2026-12-04",
  rates: RATES,
  sizes: [1e5, 1e6],
  constants: {},
  ...over,
});

const set = (...refs: MachineReference[]) => ({ dir: "/x", all: () => refs });
const probes = (cpu: number, write: number | undefined): Probes => ({ cpu: () => cpu, write: () => write });
const close = (a: number, b: number) => Math.abs(a - b) < 1e-9 * Math.max(1, Math.abs(b));

test("a slower CPU and a faster write path: the overhead scales by the CPU probe, what grows with the data by the write path's", () => {
  const c = probeCalibration({ references: set(reference()) }, probes(0.08, 0.005));
  assert.ok(c);
  assert.ok(close(c.overheadSeconds, 2));
  assert.ok(close(c.timedPerSizeSeconds, 0.5e-5));
  assert.ok(close(c.untimedPerSizeSeconds, 0.5e-6));
  assert.deepEqual(c.kinds, { pass: { size: 1e6, seconds: 5, exponent: 1.2, untimedSeconds: 1.5 } });
  assert.match(
    c.source,
    /reference rates of CPU A \(eta-reference\.a\.json, fitted 2026-12-04\), CPU probe 2\.00× its time for the per-trial overhead, write-path probe 0\.50× for the rest \(no stored run/,
  );
  // The other way round: a faster CPU, a slower write path.
  const d = probeCalibration({ references: set(reference()) }, probes(0.02, 0.03));
  assert.ok(d);
  assert.ok(close(d.overheadSeconds, 0.5));
  assert.ok(close(d.timedPerSizeSeconds, 3e-5));
});

test("a reference without a write-path reading: CPU only, said in the line, and the write path is not probed", () => {
  const noWrite = reference({ writeProbeSeconds: null });
  const never = (): never => {
    throw new Error("the write path must not be probed when no reference can use the reading");
  };
  const c = probeCalibration({ references: set(noWrite) }, { cpu: () => 0.06, write: never });
  assert.ok(c);
  assert.ok(close(c.overheadSeconds, 1.5));
  assert.ok(close(c.timedPerSizeSeconds, 1.5e-5));
  assert.match(
    c.source,
    /CPU probe 1\.50× its time for all of it \(CPU only: that machine has no write-path reading\)/,
  );
  // A reference with a reading, but none here (no data directory to write in): CPU only, said so.
  const e = probeCalibration({ references: set(reference()) }, probes(0.06, undefined));
  assert.ok(e);
  assert.ok(close(e.timedPerSizeSeconds, 1.5e-5));
  assert.match(e.source, /CPU only: no write-path reading here/);
});

test("the nearest reference by the probes is used, and the line names it", () => {
  const xeon = reference({ file: "/x/eta-reference.xeon.json", cpuModel: "Xeon", writeProbeSeconds: null });
  const amd = reference({ file: "/x/eta-reference.amd.json", cpuModel: "EPYC", cpuProbeSeconds: 0.037 });
  // Same CPU reading as the EPYC and a write path near its own: the EPYC's, its factors 1.
  const here = chooseReference([xeon, amd], probes(0.037, 0.011));
  assert.equal(here?.reference.cpuModel, "EPYC");
  const c = probeCalibration({ references: set(xeon, amd) }, probes(0.037, 0.011));
  assert.match(c?.source ?? "", /of EPYC \(eta-reference\.amd\.json, fitted 2026-12-04; nearest of 2 by the probes\)/);
  // A write path 4× slower than the EPYC's: unknown (the Xeon's) is nearer than a known factor of 4.
  assert.equal(chooseReference([xeon, amd], probes(0.04, 0.04))?.reference.cpuModel, "Xeon");
  // None usable: no reference.
  assert.equal(
    chooseReference([xeon], probes(0.04, 0.01), () => false),
    undefined,
  );
});

test("a named constant comes from the nearest reference that has it, scaled as write-bound", () => {
  const withLoad = reference({ cpuModel: "Xeon", writeProbeSeconds: null, constants: { load: 100 } });
  const without = reference({ cpuModel: "EPYC", cpuProbeSeconds: 0.037 });
  const c = referenceConstant([withLoad, without], "load", probes(0.08, 0.011));
  assert.ok(c);
  assert.ok(close(c.seconds, 200));
  assert.match(c.text, /reference of Xeon/);
  assert.equal(referenceConstant([without], "load", probes(0.08, 0.011)), undefined);
});

test("a reference fitted at one size grows past it as a reference fitted across sizes does", () => {
  const wide = reference({ cpuModel: "Xeon", writeProbeSeconds: null });
  const oneSize = reference({
    cpuModel: "EPYC",
    cpuProbeSeconds: 0.037,
    sizes: [1e5],
    rates: {
      timedPerSizeSeconds: 6e-6,
      overheadSeconds: 0.3,
      untimedPerSizeSeconds: 0,
      constantSetup: true,
      kinds: { pass: { size: 1e5, seconds: 0.6, exponent: 1, untimedSeconds: 0.3 } },
    },
  });
  const c = probeCalibration({ references: set(wide, oneSize) }, probes(0.037, 0.01));
  assert.ok(c);
  assert.match(c.source, /of EPYC/);
  assert.equal(c.kinds?.pass?.exponent, 1.2);
  assert.equal(c.constantSetup, false);
  assert.equal(c.untimedShape, "reference");
  // Its level kept: 0.3 s of untimed work at 100k rows, split as the wide reference splits it.
  assert.ok(close(c.overheadSeconds + c.untimedPerSizeSeconds * 1e5, 0.3));
});

test("a reference file is checked as it is read: a malformed one is refused naming the file and the field", () => {
  const good = referenceFileContent(
    RATES,
    { cpuModel: "CPU A", cpuProbeSeconds: 0.04, writeProbeSeconds: null },
    "2026-12-04",
    [1e6],
  );
  const parsed = parseReference(JSON.parse(JSON.stringify(good)), "f.json");
  assert.equal(parsed.writeProbeSeconds, null);
  assert.deepEqual(parsed.rates, RATES);
  const refused = (raw: unknown, field: RegExp) =>
    assert.throws(
      () => parseReference(raw, "/x/eta-reference.bad.json"),
      (e: unknown) =>
        e instanceof EtaReferenceError && /eta-reference\.bad\.json/.test(e.message) && field.test(e.message),
    );
  const machine = good.machine as Record<string, unknown>;
  refused([], /the file must be an object/);
  refused(
    { ...good, machine: { ...machine, cpuProbeSeconds: 0 } },
    /machine\.cpuProbeSeconds must be a number > 0, got 0/,
  );
  refused({ ...good, machine: { ...machine, writeProbeSeconds: "fast" } }, /machine\.writeProbeSeconds \(or null\)/);
  refused({ ...good, machine: { ...machine, cpuModel: "" } }, /machine\.cpuModel/);
  refused({ ...good, fittedOn: "yesterday" }, /fittedOn must be a date YYYY-MM-DD/);
  refused({ ...good, rates: { ...RATES, overheadSeconds: -1 } }, /rates\.overheadSeconds must be a number ≥ 0/);
  refused({ ...good, rates: { ...RATES, kinds: { pass: { size: 1 } } } }, /rates\.kinds\["pass"\]\.seconds/);
  refused({ ...good, constants: { load: "x" } }, /constants\.load/);

  // Read from a folder: lazily, when an ETA first needs them, with the file named.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "eta-ref-"));
  try {
    fs.writeFileSync(path.join(dir, "eta-reference.a.json"), JSON.stringify(good));
    fs.writeFileSync(path.join(dir, "eta-reference.b.json"), "{ torn");
    fs.writeFileSync(path.join(dir, "other.json"), "not a reference, not read");
    const refs = referencesIn(dir);
    assert.equal(refs.dir, dir);
    assert.throws(
      () => refs.all(),
      (e: unknown) =>
        e instanceof EtaReferenceError &&
        e.message.includes("eta-reference.b.json: not readable as JSON") &&
        e.cause !== undefined,
    );
    fs.rmSync(path.join(dir, "eta-reference.b.json"));
    assert.deepEqual(
      referencesIn(dir)
        .all()
        .map((r) => r.cpuModel),
      ["CPU A"],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the write-path probe reads a time where it can write and leaves nothing; none where it cannot", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "write-probe-"));
  try {
    const seconds = writeProbeIn(dir);
    assert.ok(seconds !== undefined && seconds > 0, String(seconds));
    assert.deepEqual(fs.readdirSync(dir), []);
    assert.equal(writeProbeIn(path.join(dir, "missing")), undefined);
    assert.deepEqual(fs.readdirSync(dir), []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("beside other work the write-path factor is bounded by the CPU probe's; a box with an idle CPU is read in full", () => {
  const ref = reference(); // CPU 0.04 s, write path 0.01 s
  // A shared CPU (2.5× the reference's) and a write path read 9× (its waits queue for the CPU):
  // what grows with the data is scaled by 2 × 2.5, the overhead by 2.5, and the line says both.
  const loaded = probeCalibration({ references: set(ref) }, probes(0.1, 0.09));
  assert.ok(loaded);
  const bound = WRITE_OVER_CPU_MAX * 2.5;
  assert.ok(close(loaded.overheadSeconds, 2.5));
  assert.ok(close(loaded.timedPerSizeSeconds, 1e-5 * bound));
  assert.ok(close(loaded.kinds?.pass?.seconds ?? NaN, 10 * bound));
  assert.match(loaded.source, /write-path probe 9\.00×, taken as 5\.00× \(at most 2× the CPU probe's factor/);
  const chosen = chooseReference([ref], probes(0.1, 0.09));
  assert.ok(chosen);
  assert.ok(close(writeBoundFactor(chosen), bound));
  // Under the bound: as read, and not said to be bounded.
  const under = probeCalibration({ references: set(ref) }, probes(0.1, 0.04));
  assert.ok(under && close(under.timedPerSizeSeconds, 4e-5));
  assert.doesNotMatch(under.source, /taken as/);
  // A CPU as fast as the reference's (nothing queues for it) and a slow write path: counted in full.
  const slowDisk = probeCalibration({ references: set(ref) }, probes(0.04, 0.06));
  assert.ok(slowDisk && close(slowDisk.timedPerSizeSeconds, 6e-5));
  // A reference constant is scaled by the same bounded factor.
  const constant = referenceConstant([reference({ constants: { load: 10 } })], "load", probes(0.1, 0.09));
  assert.ok(constant && close(constant.seconds, 10 * bound));
});

test("a reference of this machine's CPU model is chosen before a nearer one by the probes", () => {
  const xeon = reference({ file: "/x/eta-reference.xeon.json", cpuModel: "Xeon, 2 cores", writeProbeSeconds: null });
  const amd = reference({ file: "/x/eta-reference.amd.json", cpuModel: "EPYC, 2 cores", cpuProbeSeconds: 0.037 });
  // A write path read 8× the EPYC's beside other work: by the probes alone, the Xeon's (no reading) is nearer.
  const busy = probes(0.05, 0.08);
  assert.equal(chooseReference([xeon, amd], busy)?.reference.cpuModel, "Xeon, 2 cores");
  const onEpyc: Probes = { ...busy, model: () => "EPYC, 2 cores" };
  const chosen = chooseReference([xeon, amd], onEpyc);
  assert.equal(chosen?.reference.cpuModel, "EPYC, 2 cores");
  assert.equal(chosen?.sameModel, true);
  const c = probeCalibration({ references: set(xeon, amd) }, onEpyc);
  assert.match(c?.source ?? "", /eta-reference\.amd\.json, fitted 2026-12-04; of 2, the nearest of this CPU model\)/);
  // A model no reference has: the nearest by the probes, as before.
  const elsewhere: Probes = { ...busy, model: () => "Other CPU, 8 cores" };
  assert.equal(chooseReference([xeon, amd], elsewhere)?.reference.cpuModel, "Xeon, 2 cores");
  assert.equal(chooseReference([xeon, amd], elsewhere)?.sameModel, undefined);
});

test("a model whose trials wait on what the lab sets scales by the CPU probe alone, and says why", () => {
  // The same probes as above: a write path twice as slow would double what grows with the data.
  const c = probeCalibration({ references: set(reference()), waitsOn: "cpu" }, probes(0.08, 0.02));
  assert.ok(c);
  assert.ok(close(c.overheadSeconds, 2));
  assert.ok(close(c.timedPerSizeSeconds, 2e-5));
  assert.deepEqual(c.kinds, { pass: { size: 1e6, seconds: 20, exponent: 1.2, untimedSeconds: 6 } });
  assert.match(
    c.source,
    /CPU probe 2\.00× its time for all of it \(CPU only: its trials wait on delays this lab sets\)/,
  );
  // Without the model's word, the write path's factor (2×) and the CPU's (2×) happen to agree: change one.
  const w = probeCalibration({ references: set(reference()) }, probes(0.08, 0.04));
  assert.ok(w && close(w.timedPerSizeSeconds, 4e-5));
  const cpu = probeCalibration({ references: set(reference()), waitsOn: "cpu" }, probes(0.08, 0.04));
  assert.ok(cpu && close(cpu.timedPerSizeSeconds, 2e-5));
  // Its named constants (the wall outside its trials) are read the same way: CPU 2×, write path 4×.
  const constant = (waitsOn?: "cpu") =>
    referenceConstant([reference({ constants: { outside: 10 } })], "outside", probes(0.08, 0.04), waitsOn);
  assert.ok(close(constant()?.seconds ?? NaN, 40));
  assert.ok(close(constant("cpu")?.seconds ?? NaN, 20));
  assert.match(constant("cpu")?.text ?? "", /CPU only: its trials wait on delays this lab sets/);
});

test("a refit takes the machine's readings its runs recorded, and the wall outside the trials their accounts give", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "eta-stored-"));
  try {
    const run = (name: string, probes: unknown, outside?: number) => {
      const dir = path.join(root, `R${name}_07-fillfactor-hot_${name}`);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, "params.json"), "{}");
      fs.writeFileSync(path.join(dir, "metadata.json"), JSON.stringify({ probes }));
      if (outside !== undefined)
        fs.writeFileSync(
          path.join(dir, "time.json"),
          JSON.stringify({
            wallSeconds: 60,
            measuredShare: 0.5,
            trials: 3,
            rest: { kernelStart: 2, beforeTrials: outside - 4, trialSetup: 9, betweenTrials: 1, afterTrials: 1 },
          }),
        );
    };
    assert.equal(storedProbeReadings("07-fillfactor-hot", root), undefined);
    run("a", { cpuProbeSeconds: 0.04, writeProbeSeconds: 0.02 }, 10);
    run("b", { cpuProbeSeconds: 0.06, writeProbeSeconds: null }, 20);
    run("c", "not probes", 30);
    assert.deepEqual(storedProbeReadings("07-fillfactor-hot", root), {
      cpuProbeSeconds: 0.05,
      writeProbeSeconds: 0.02,
    });
    // Another notebook of run a's command read slow probes at its start: a's readings are the command's median.
    for (const [notebook, cpu, write] of [
      ["01-index-write-cost", 0.2, 0.1],
      ["02-create-index-after-load", 0.041, 0.021],
    ] as const) {
      const dir = path.join(root, `Ra_${notebook}_x`);
      fs.mkdirSync(dir);
      fs.writeFileSync(
        path.join(dir, "metadata.json"),
        JSON.stringify({ probes: { cpuProbeSeconds: cpu, writeProbeSeconds: write } }),
      );
    }
    const commandMedian = storedProbeReadings("07-fillfactor-hot", root);
    assert.ok(commandMedian && close(commandMedian.cpuProbeSeconds, (0.041 + 0.06) / 2));
    assert.ok(commandMedian.writeProbeSeconds !== null && close(commandMedian.writeProbeSeconds, 0.021));
    const model = { references: set(reference({ constants: { outsideTrialsSeconds: 99 } })) };
    const stored = outsideTrials("07-fillfactor-hot", model, root, probes(0.04, 0.01));
    assert.equal(stored?.seconds, 20);
    assert.match(
      stored?.text ?? "",
      /outside the trials \(kernel, servers, summaries and charts: 3 stored run\(s\) here\)/,
    );
    // None stored: the reference's, scaled as write-bound (0.02 ÷ 0.01 here).
    const none = outsideTrials("07-fillfactor-hot", model, path.join(root, "none"), probes(0.04, 0.02));
    assert.equal(none?.seconds, 198);
    assert.match(none?.text ?? "", /eta-reference\.a\.json's, scaled as its rates/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("a probe within the span the reference's fitted runs read counts as 1×; outside it, against the nearer end", () => {
  assert.equal(probeFactor(0.05, 0.04), 1.25, "no span: against the reference's reading, as before");
  const span = [0.03, 0.04] as const;
  for (const inside of [0.03, 0.035, 0.04]) assert.equal(probeFactor(inside, 0.035, span), 1, `${inside} s`);
  assert.ok(Math.abs(probeFactor(0.05, 0.035, span) - 1.25) < 1e-9, "above: ÷ the span's most");
  assert.ok(Math.abs(probeFactor(0.015, 0.035, span) - 0.5) < 1e-9, "below: ÷ the span's least");

  const spans = { cpu: [0.03, 0.04] as const, write: [0.01, 0.02] as const };
  const at = (cpu: number, write: number): Probes => ({ cpu: () => cpu, write: () => write, model: () => "CPU A" });
  const withSpans = reference({ cpuModel: "CPU A", cpuProbeSeconds: 0.035, writeProbeSeconds: 0.015, spans });
  const inside = chooseReference([withSpans], at(0.031, 0.019));
  assert.equal(inside?.cpuFactor, 1);
  assert.equal(inside?.writeFactor, 1);
  assert.match(referenceText(inside), /a probe within the span its fitted runs read counts as 1×/);
  const outside = chooseReference([withSpans], at(0.08, 0.03));
  assert.ok(outside && Math.abs(outside.cpuFactor - 2) < 1e-9 && Math.abs((outside.writeFactor ?? 0) - 1.5) < 1e-9);
  const none = chooseReference(
    [reference({ cpuModel: "CPU A", cpuProbeSeconds: 0.035, writeProbeSeconds: 0.015 })],
    at(0.031, 0.019),
  );
  assert.ok(none && none.cpuFactor < 1 && (none.writeFactor ?? 0) > 1, "a reference without spans scales as before");

  // Written and read back; a span that is not [least, most] is refused naming the field.
  const content = referenceFileContent(
    RATES,
    { cpuModel: "CPU A", cpuProbeSeconds: 0.035, writeProbeSeconds: 0.015 },
    "2026-12-06",
    [1e6],
    {},
    undefined,
    spans,
  );
  assert.deepEqual(parseReference(JSON.parse(JSON.stringify(content)), "f.json").spans, spans);
  const machine = content.machine as Record<string, unknown>;
  for (const bad of [[0.04, 0.03], [0.03], [0, 0.04], "0.03-0.04"])
    assert.throws(
      () => parseReference({ ...content, machine: { ...machine, cpuProbeSpan: bad } }, "/x/eta-reference.bad.json"),
      (e: unknown) => e instanceof EtaReferenceError && /machine\.cpuProbeSpan/.test(e.message),
      JSON.stringify(bad),
    );
});
