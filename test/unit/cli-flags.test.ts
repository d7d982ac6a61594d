/**
 * Every command, as a user runs it (the built script, a child process): `--help` prints its usage
 * and exits 0, an unknown flag exits 2 naming it, and neither does anything else — a planted record
 * of a dead run's leftover is still there, no results or reports directory appears, nothing is
 * printed on stdout. Then `clean --dry-run` lists that leftover and removes nothing (a real clean
 * does remove it), `runs --format json` gives one object per run, and `eta:reference` reads a stored
 * run under the probe's rates.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RunListing } from "../../scripts/runs";
import { INDEX_WRITE_COST_PROFILES } from "../../lib/experiments/index-write-cost/params";
import { estimate } from "../../lib/experiments/index-write-cost/eta";
import { parseReference } from "../../lib/experiments/eta";

const built = path.resolve(__dirname, "..", "..");
const box = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-cli-flags-"));
after(() => fs.rmSync(box, { recursive: true, force: true }));

/** Every command line the lab ships: npm scripts first, then the helpers a user may call by path. */
const COMMANDS: readonly { readonly name: string; readonly script: string }[] = [
  { name: "reproduce", script: "scripts/reproduce.js" },
  { name: "compare", script: "scripts/compare.js" },
  { name: "runs", script: "scripts/runs.js" },
  { name: "eta:reference", script: "scripts/eta-reference.js" },
  { name: "clean", script: "scripts/clean.js" },
  { name: "export", script: "scripts/export.js" },
  { name: "lab", script: "scripts/lab.js" },
  { name: "bench", script: "bench/run.js" },
  { name: "test", script: "scripts/test.js" },
  { name: "watcher", script: "scripts/watcher.js" },
  { name: "build-assets", script: "scripts/build-assets.js" },
  { name: "delay-proxy", script: "bench/delay-proxy.js" },
  { name: "write-path", script: "bench/write-path.js" },
];

interface Sandbox {
  readonly env: NodeJS.ProcessEnv;
  readonly results: string;
  readonly reports: string;
  readonly record: string;
  readonly leftover: string;
}

/** A state folder holding one record of a dead run's server directory, and results/reports paths not yet made. */
function sandbox(name: string): Sandbox {
  const dir = fs.mkdtempSync(path.join(box, `${name}-`));
  const state = path.join(dir, "state");
  const leftover = path.join(dir, "leftover-data-dir");
  fs.mkdirSync(path.join(state, "resources"), { recursive: true });
  fs.mkdirSync(leftover);
  const record = path.join(state, "resources", "planted.json");
  // Pids above the kernel's pid_max (4,194,304) are never alive.
  const dead = 999_999_990;
  fs.writeFileSync(
    record,
    JSON.stringify({
      id: "planted",
      ownerPid: dead,
      createdAt: new Date().toISOString(),
      resource: { type: "process", pid: dead + 1, directory: leftover, description: "planted embedded server" },
    }),
  );
  const results = path.join(dir, "results");
  const reports = path.join(dir, "reports");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DBLAB_STATE_DIR: state,
    DBLAB_RESULTS_DIR: results,
    DBLAB_TARGET: "embedded",
    DBLAB_PULL: "never",
    // No engine: a clean here must never reach the shared Docker daemon of the machine.
    DOCKER_HOST: `unix://${path.join(dir, "no-docker.sock")}`,
  };
  return { env, results, reports, record, leftover };
}

function run(script: string, args: readonly string[], env: NodeJS.ProcessEnv) {
  const out = spawnSync(process.execPath, [path.join(built, script), ...args], {
    env,
    cwd: box,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: out.status, signal: out.signal, stdout: out.stdout, stderr: out.stderr };
}

function assertNothingStarted(s: Sandbox, what: string): void {
  assert.ok(fs.existsSync(s.record), `${what}: the planted record is still there`);
  assert.ok(fs.existsSync(s.leftover), `${what}: the planted leftover is still there`);
  assert.ok(!fs.existsSync(s.results), `${what}: no results directory was made`);
  assert.deepEqual(
    fs.readdirSync(path.join(path.dirname(s.record))).sort(),
    ["planted.json"],
    `${what}: no resource was recorded`,
  );
}

for (const { name, script } of COMMANDS) {
  test(`${name}: --help prints its usage, exits 0 and starts nothing`, () => {
    const s = sandbox(`${name}-help`);
    const out = run(script, ["--help"], s.env);
    assert.equal(out.status, 0, `${name} --help: ${out.stderr}`);
    assert.match(out.stdout, /^Usage: /, `${name} --help prints its usage`);
    assertNothingStarted(s, `${name} --help`);
  });

  test(`${name}: an unknown flag exits 2 naming it, before anything starts`, () => {
    const s = sandbox(`${name}-bogus`);
    for (const bogus of ["--frobnicate", "--frobnicate=3"]) {
      // The bogus flag last: a command that acted on the arguments before it would have started.
      const args = name === "reproduce" ? ["--profile", "smoke", "--reports-dir", s.reports, bogus] : [bogus];
      const out = run(script, args, s.env);
      assert.equal(
        out.status,
        2,
        `${name} ${bogus}: exit ${out.status} ${out.signal ?? ""}\n${out.stdout}\n${out.stderr}`,
      );
      assert.ok(out.stderr.includes(`"${bogus}"`), `${name} ${bogus}: names it: ${out.stderr}`);
      assert.equal(out.stdout, "", `${name} ${bogus}: nothing on stdout (nothing started)`);
      assertNothingStarted(s, `${name} ${bogus}`);
      assert.ok(!fs.existsSync(s.reports), `${name} ${bogus}: no reports directory`);
    }
  });
}

test("clean --dry-run lists a dead run's leftover and removes nothing; clean then removes it", () => {
  const s = sandbox("clean-dry-run");
  const dry = run("scripts/clean.js", ["--dry-run"], s.env);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /would remove planted embedded server \(owner pid 999999990 gone\)/);
  assert.match(dry.stdout, /would remove 1 resource\(s\); removed nothing/);
  assert.ok(fs.existsSync(s.record) && fs.existsSync(s.leftover), "a dry run removed nothing");
  const real = run("scripts/clean.js", [], s.env);
  assert.equal(real.status, 0, real.stderr);
  assert.match(real.stdout, /removed planted embedded server/);
  assert.ok(!fs.existsSync(s.record) && !fs.existsSync(s.leftover), "a real clean removed both");
  const again = run("scripts/clean.js", ["--dry-run"], s.env);
  assert.match(again.stdout, /would remove 0 resource\(s\)/);
});

test("runs --format json: one object per run, newest first, with the table's columns as data", () => {
  const s = sandbox("runs-json");
  const make = (id: string, notebook: string, trials: string[]) => {
    const dir = path.join(s.results, id);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "params.json"), "{}");
    fs.writeFileSync(
      path.join(dir, "metadata.json"),
      JSON.stringify({
        runId: id,
        notebook,
        profile: "smoke",
        startedAt: `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}T10:00:00.000Z`,
        gitCommit: "abc123",
        servers: [{ engine: "postgresql", kind: "embedded", version: "17.6" }],
        finishedAt: "2026-11-30T10:01:00.000Z",
        outcome: "finished",
      }),
    );
    fs.writeFileSync(path.join(dir, "trials.jsonl"), trials.map((t) => `${t}\n`).join(""));
  };
  const trial = (key: string, status: string) => JSON.stringify({ key, condition: {}, repeat: 1, status, seconds: 1 });
  make("20261129T100000Z-aaaaaa", "01-index-write-cost", [trial("a", "ok"), trial("b", "failed")]);
  make("20261130T100000Z-bbbbbb", "03-over-indexing", [trial("a", "ok")]);
  const out = run("scripts/runs.js", ["--format", "json"], s.env);
  assert.equal(out.status, 0, out.stderr);
  const runs = JSON.parse(out.stdout) as RunListing[];
  assert.deepEqual(
    runs.map((r) => [r.id, r.notebookId, r.profile, r.trials.ok, r.trials.failed]),
    [
      ["20261130T100000Z-bbbbbb", "03", "smoke", 1, 0],
      ["20261129T100000Z-aaaaaa", "01", "smoke", 1, 1],
    ],
  );
  assert.deepEqual(runs[0].targets, ["embedded"]);
  const one = JSON.parse(run("scripts/runs.js", ["--format=json", "--notebook", "1"], s.env).stdout) as RunListing[];
  assert.deepEqual(
    one.map((r) => r.id),
    ["20261129T100000Z-aaaaaa"],
  );
  // --time: where each run's wall went, from its time account (a run without one says so).
  fs.writeFileSync(
    path.join(s.results, "20261130T100000Z-bbbbbb", "time.json"),
    JSON.stringify({
      wallSeconds: 10,
      etaSeconds: null,
      etaRatio: null,
      timedSeconds: 6,
      measuredShare: 0.6,
      trials: 1,
      rest: { kernelStart: 1, beforeTrials: 1, trialSetup: 1, betweenTrials: 0, afterTrials: 1 },
      recorded: { loadSeconds: 0.75 },
    }),
  );
  const timed = run("scripts/runs.js", ["--time"], s.env);
  assert.equal(timed.status, 0, timed.stderr);
  assert.match(
    timed.stdout,
    /20261130T100000Z-bbbbbb: kernel 1\.0 s, .*trials' setup 1\.0 s \(loadSeconds 0\.8 s, other 0\.3 s\)/,
  );
  assert.match(timed.stdout, /20261129T100000Z-aaaaaa: no time account/);
  const timedJson = JSON.parse(run("scripts/runs.js", ["--format", "json", "--time"], s.env).stdout) as RunListing[];
  assert.equal(timedJson[0].time?.measuredShare, 0.6);
  assert.equal(timedJson[1].time, null);
  // Other work during the run, from its quietness; a run that did not measure it has none.
  const metaFile = path.join(s.results, "20261130T100000Z-bbbbbb", "metadata.json");
  const meta = JSON.parse(fs.readFileSync(metaFile, "utf8")) as Record<string, unknown>;
  const during = { loadAverage1m: 3, busyShare: 0.9, otherBusyShare: 0.42, seconds: 10, maxLoadAverage1m: 3 };
  fs.writeFileSync(metaFile, JSON.stringify({ ...meta, quietness: { cpus: 2, during } }));
  const other = JSON.parse(run("scripts/runs.js", ["--format", "json"], s.env).stdout) as RunListing[];
  assert.deepEqual(
    other.map((r) => r.otherWorkShare),
    [0.42, null],
  );
  const text = run("scripts/runs.js", [], s.env).stdout;
  assert.match(text, /other work/);
  assert.match(text, /20261130T100000Z-bbbbbb .* 42 % /);
  const bad = run("scripts/runs.js", ["--format", "xml"], s.env);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--format must be text or json, got "xml"/);
});

test("eta:reference: a stored run's trials beside the no-stored-runs ETA, and the rates they give, written with the machine's readings", () => {
  const s = sandbox("eta-reference");
  const dir = path.join(s.results, "20261201T100000Z-aaaaaa_01-index-write-cost_aaaa");
  fs.mkdirSync(dir, { recursive: true });
  // 01's smoke plan's first two trials, as its trial loop stores them.
  const rows = 2000;
  const trial = (key: string, wall: number) =>
    JSON.stringify({
      key,
      condition: { engine: "postgresql", rows, extraIndexes: 0, operation: "insert", fillfactor: 100 },
      status: "ok",
      seconds: 0.02,
      startedAt: "2026-12-01T10:00:00.000Z",
      finishedAt: new Date(Date.parse("2026-12-01T10:00:00.000Z") + wall * 1000).toISOString(),
    });
  const p = INDEX_WRITE_COST_PROFILES.smoke;
  const units = estimate
    .units(p, true, { root: s.results, notebook: "01-index-write-cost" })
    .filter((u) => u.size === rows);
  const [a, b] = units;
  assert.ok(a && b, "01's smoke plan has trials at 2,000 rows");
  fs.writeFileSync(path.join(dir, "params.json"), JSON.stringify(p));
  fs.writeFileSync(path.join(dir, "trials.jsonl"), [trial(a.key, 0.5), trial(b.key, 0.7)].join("\n") + "\n");
  const out = run("scripts/eta-reference.js", ["--notebook", "1"], s.env);
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, /CPU probe here \d\.\d{3} s, write-path probe (\d+\.\d{3} s|not readable)/);
  assert.match(
    out.stdout,
    /20261201T100000Z-aaaaaa_01-index-write-cost_aaaa +2 +1\.2 s +\S+ s \(\d+\.\d\d×\) +\S+ s \(1\.00×\)/,
  );
  assert.match(
    out.stdout,
    /refitted: \{"timedPerSizeSeconds":[0-9.e-]+,"overheadSeconds":[0-9.e-]+,.*"constantSetup":true,"kinds":\{"insert \+0":\{"size":2000,/,
  );
  // --write: the rates with this machine's CPU model, readings and the day, a file the loader reads.
  const outDir = fs.mkdtempSync(path.join(box, "eta-out-"));
  const written = run(
    "scripts/eta-reference.js",
    ["--notebook", "01", "--write", "--machine", "test-box", "--out", outDir],
    s.env,
  );
  assert.equal(written.status, 0, written.stderr);
  const file = path.join(outDir, "01-index-write-cost.eta-reference.test-box.json");
  const ref = parseReference(JSON.parse(fs.readFileSync(file, "utf8")), file);
  assert.ok(ref.cpuProbeSeconds > 0);
  assert.deepEqual(ref.sizes, [2000]);
  assert.equal(ref.fittedOn, new Date().toISOString().slice(0, 10));
  assert.equal(ref.rates.kinds?.["insert +0"]?.size, 2000);
  const lone = run("scripts/eta-reference.js", ["--machine", "x"], s.env);
  assert.equal(lone.status, 2);
  assert.match(lone.stderr, /--machine and --out say where --write writes: give --write/);
  assert.doesNotMatch(out.stdout, /02-create-index-after-load/, "--notebook 1 reads 01 only");
  const none = run("scripts/eta-reference.js", ["--notebook", "05"], s.env);
  assert.equal(none.status, 0, none.stderr);
  assert.match(none.stdout, /05-round-trips: no stored trial here/);
  const bad = run("scripts/eta-reference.js", ["--notebook", "x1"], s.env);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--notebook needs a notebook number/);
  // Refitted from elsewhere: a folder without 01's runs refits nothing, and the table says so.
  const empty = fs.mkdtempSync(path.join(box, "fit-from-"));
  const apart = run("scripts/eta-reference.js", ["--notebook", "01", "--fit-from", empty], s.env);
  assert.equal(apart.status, 0, apart.stderr);
  assert.match(apart.stdout, /_01-index-write-cost_aaaa +2 +1\.2 s .* no run to refit from/);
  assert.match(apart.stdout, /no stored trial to refit from/);
  const missing = run("scripts/eta-reference.js", ["--fit-from", path.join(empty, "nope")], s.env);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /--fit-from needs a folder of stored runs/);
});
