/** A run: the reader's data loaded once into a template, every variant built from it, the workload checked, then
 * rounds while an index is undecided and the budget lasts. */
import type { YourIndexesParams } from "./params";
import { lookPlan, nextRound } from "../../stats/adaptive";
import { SPEED_STATE_RATIO, speedSpread } from "../../stats/speed";
import { MIN_COVERAGE } from "../../stats/claims";
import { percent } from "../../stats/format";
import type { ServerSpec } from "../../targets/types";
import { memoryAndWalSettings } from "../../engines/postgres/server-settings";
import { lastTrialText } from "../../workloads/pgbench-trial";
import { withActivity } from "../../workloads/server-activity";
import { runTrials } from "../../workloads/trials";
import { listTables } from "./workload/catalog";
import { buildVariants, createTemplate, dropAllDatabases, fillFromFile } from "./workload/databases";
import { withAdmin } from "../../workloads/fresh-copies";
import { workloadDatabases, type BuiltVariant, type LoadedTemplate } from "./workload/databases";
import { checkScripts, planRounds, trialRunner, type PlannedTrial } from "./workload/run-trials";
import type { ScriptsCheck, YourIndexesTrial } from "./workload/run-trials";
import { readSourceStats, sampleFromSource, unusedIndexes, UnusedIndexesError } from "./workload/sample";
import type { SourceInfo } from "./workload/sample";
import { readWorkload, updateStatements, type UpdateStatement, type WorkloadScript } from "./workload/scripts";
import { candidateNames, checkGroups, existingToJudge, planDesign } from "./workload/variants";
import type { Judged, Variant } from "./workload/variants";
import { repeatedRounds, runAdaptivePlan } from "../adaptive-rounds";
import type { RunOf, Work } from "../define";
import { pgbenchOnPostgres } from "../servers";
import { chooseDesign, type DesignChoice } from "./eta";
import { judgeIndex } from "./claims";
import { summarise, type SummaryContext, type YourIndexesSummary } from "./summarise";

export type VariantInfo = BuiltVariant & Pick<Variant, "label">;

/** What a run carries besides its trials: what was loaded, built and checked before them. */
export interface RunSetup {
  readonly template: LoadedTemplate;
  readonly variants: readonly VariantInfo[];
  readonly judged: readonly Judged[];
  readonly scripts: readonly WorkloadScript[];
  readonly updates: readonly UpdateStatement[];
  readonly workloadCheck: ScriptsCheck;
  readonly reads: readonly WorkloadScript[];
  readonly readCheck?: ScriptsCheck;
  readonly source?: SourceInfo;
  readonly design?: DesignChoice;
}

export type YourIndexesRun = RunOf<YourIndexesParams, YourIndexesTrial, RunSetup>;

/** `existing: "unused"`, read before the session: a short window or nothing unused is refused with no server up. */
export type Unused = { readonly names: string[]; readonly text: string } | undefined;

export const readUnused = async (p: YourIndexesParams): Promise<Unused> =>
  p.existing === "unused" ? unusedIndexes(await readSourceStats(p.sampleFrom), p.minStatsDays) : undefined;

export const serverSpec = (p: YourIndexesParams): ServerSpec => ({
  engine: "postgresql",
  name: "06-pg",
  settings: {
    ...memoryAndWalSettings(p),
    synchronous_commit: p.synchronousCommit,
    // A fresh server zero-fills its first WAL segments, slowing the first round only (docs/your-indexes.md).
    wal_init_zero: "off",
    track_io_timing: "on",
    max_connections: Math.max(100, p.clients + 20),
  },
  uses: {
    notebook: "06 your indexes",
    // pgbench's clients, the check's one, the admin session and the speed probe.
    clients: p.clients + 3,
    databases: workloadDatabases(p),
    extensions: [
      {
        name: "pg_walinspect",
        measures: "each index's own B-tree entries, leaf inserts and splits per transaction, counted in the WAL",
      },
    ],
  },
});

export const summariseRun = (
  trials: readonly YourIndexesTrial[],
  run: SummaryContext & Pick<YourIndexesRun, "params">,
): YourIndexesSummary => ({ ...summarise(trials, run), looks: lookPlan(run.params.repeats, run.params.maxRepeats) });

/** Under the sets design, whether each set's cost makes its members worth judging one at a time. */
function setFollowUps(s: YourIndexesSummary, p: YourIndexesParams): string[] {
  const m = `±${percent(p.equivalenceMargin, 1)}`;
  return s.indexes.flatMap(({ kind, cost: c, members, name }) => {
    if (kind !== "set" || !c || !members) return [];
    const at = `${percent(c.estimate, 1)} [${percent(c.low, 1)}–${percent(c.high, 1)}]`;
    return c.coverage < MIN_COVERAGE
      ? `${name} costs ${at} of throughput on ${c.n} rounds, an interval that covers the median with only ${Math.round(c.coverage * 100)} %: too few rounds to say whether its members need judging one at a time`
      : c.low > p.equivalenceMargin
        ? `${name} costs ${at}, beyond your margin ${m}: its ${members.length} indexes are worth judging one at a time (existing: ${JSON.stringify(members)}, oneAtATime: "always"; or groups of the ones you ask about)`
        : `${name} costs ${at} of throughput, not wholly beyond your margin ${m}: its members were not judged one at a time`;
  });
}

/** The source's unused indexes that the schema file has (one it lacks is said in the notes). */
function unusedInSchema(names: readonly string[], indexes: readonly { name: string }[], notes: string[]): string[] {
  const here = names.filter((n) => indexes.some((i) => i.name === n));
  const missing = names.filter((n) => !here.includes(n));
  if (missing.length)
    notes.push(`unused on the source but not in the schema file, so not judged: ${missing.join(", ")}`);
  if (here.length === 0)
    throw new UnusedIndexesError(
      `existing: "unused": none of the source's unused indexes (${names.join(", ")}) is in the schema file; is it the source's schema (pg_dump --schema-only)?`,
    );
  return here;
}

export async function runRounds({
  params: p,
  session: { store, progress, servers, signal, notes, writeMetadata },
  before: unused,
  startedAt,
  estimateAs,
}: Work<YourIndexesParams, YourIndexesTrial, PlannedTrial, Unused>): Promise<RunSetup> {
  const scripts = readWorkload(p.workload);
  const updates = updateStatements(scripts);
  // Read scripts run alone, so a weight means nothing; a read script may share a workload script's name.
  const reads = readWorkload(p.reads);
  const { server, runner } = await pgbenchOnPostgres(servers, "06", notes);
  // 1. The schema, the names to judge (checked against it before any data), the data.
  let drops: string[] = [];
  const names = candidateNames(p.candidates);
  let source: SourceInfo | undefined;
  let step = "";
  const template = await withActivity(
    server,
    (line) => progress.update(0, 1, `loading the template: ${step} · ${line}`),
    () =>
      createTemplate(server, p.schema, {
        afterSchema: (indexes) => {
          const named = p.existing === "unused" ? unusedInSchema(unused?.names ?? [], indexes, notes) : p.existing;
          drops = existingToJudge(named, indexes);
          checkGroups(p.groups, indexes, names);
        },
        fill: p.sampleFrom
          ? async (srv, database, sig) => {
              const tables = await withAdmin(srv, database, listTables);
              source = await sampleFromSource(p.sampleFrom, tables, p.sampleRows, srv, database, sig);
            }
          : fillFromFile(p.data, p.scale),
        onStep: (s) => {
          step = s;
          progress.update(0, 1, `loading the template: ${s}…`);
        },
        signal,
      }),
  );
  // 2. The design, then the variants, each built once (a candidate the server refuses stops the run here).
  const design = chooseDesign(p, drops);
  notes.push(`design: ${design.why}`);
  let plan = planDesign(p, drops, names, design.design);
  progress.update(0, 1, `building ${plan.variants.length} variants…`);
  const built = await buildVariants(server, plan.variants, p.candidates, p.maintenanceWorkMemMB, signal);
  const created = names.map((n, i) => built.find((b) => b.id === `add:${i + 1}`)?.created[0] ?? n);
  plan = planDesign(p, drops, created, design.design);
  const variants: VariantInfo[] = plan.variants.map((v) => {
    const b = built.find((x) => x.id === v.id);
    if (!b) throw new Error(`variant ${v.id} was not built`);
    return { ...b, label: v.label };
  });
  // 3. The workload writes something; each read script only reads; or the run stops here.
  progress.update(0, 1, "checking the workload (each script for 1 s)…");
  const defines = { scale: p.scale };
  const workloadCheck = await checkScripts(server, runner, variants[0].database, { scripts, defines }, { signal });
  if (reads.length) progress.update(0, 1, "checking the read scripts (each for 1 s, read-only)…");
  const readCheck = reads.length
    ? await checkScripts(server, runner, variants[0].database, { scripts: reads, defines }, { reading: true, signal })
    : undefined;
  const written = workloadCheck.writtenTables;
  const never = template.tables.filter((t) => !written.includes(t));
  const rows = Object.entries(template.rows).map(([t, n]) => `${t} ${n.toLocaleString("en-US")} rows`);
  const readsNote = `after every write run, each read script (${reads.map((r) => r.name).join(", ")}) runs alone for ${p.readSeconds} s on the same clone, in read-only sessions, with the same clients; its latency is paired per round like the write cost, and each index's scans during it are counted (pg_stat_user_indexes)`;
  notes.push(
    `template: ${rows.join(", ")} (${(template.databaseBytes / 2 ** 20).toFixed(1)} MiB); every run starts from a FILE_COPY clone of its variant`,
    `the workload writes ${written.join(", ")}${never.length ? `; never ${never.join(", ")}` : ""}`,
    ...(reads.length ? [readsNote] : []),
    `every round runs the baseline between every two variants (B V₁ B V₂ … B), each variant's cost against the two baseline runs around it; the variants' order is a Williams design over rounds (every variant at every position, and right after every other variant, equally often)`,
  );
  if (!template.walInspect)
    notes.push(`no pg_walinspect here (${template.walInspectError}): B-tree inserts per transaction are not measured`);
  if (unused) notes.push(unused.text);
  if (source)
    notes.push(`data: a sample of ${source.source} (PostgreSQL ${source.version}), read in one READ ONLY transaction`);
  const setup: RunSetup = {
    template,
    variants,
    judged: plan.judged,
    scripts,
    updates,
    workloadCheck,
    reads,
    readCheck,
    source,
    design,
  };
  writeMetadata(setup);
  const ids = variants.map((v) => v.id);
  let trialPlan: readonly PlannedTrial[] = [];
  const at = (planned: PlannedTrial, text: string) =>
    progress.update(trialPlan.indexOf(planned), trialPlan.length, `${planned.key}: ${text}`);
  const runOne = trialRunner({
    server,
    runner,
    databases: new Map(variants.map((v) => [v.id, v.database])),
    ...p,
    scripts,
    defines,
    walInspect: template.walInspect,
    // A without-variant lacks the judged indexes, so has none of their entries.
    countEntriesIn: new Set(plan.judged.map((j) => j.withVariant)),
    reads,
    signal,
    onNote: (text) => notes.push(text),
    onStatus: at,
  });
  const summariseSoFar = () => summariseRun(store.trials(), { ...setup, params: p });
  const adaptive = await runAdaptivePlan({
    ...repeatedRounds(p, estimateAs),
    startedAt,
    signal,
    notes,
    part: (round) => planRounds(ids, round, round),
    runPart: (part, whole) => {
      trialPlan = whole;
      return runTrials(part, runOne, {
        store,
        signal,
        // One pgbench run per trial, all of the same length: they set each other's stall bound.
        watch: (planned) => ({ engine: "postgresql", what: `${planned.key} (pgbench)`, group: "pgbench run" }),
        onProgress: ({ done, next, last }) =>
          progress.update(
            Math.max(0, trialPlan.indexOf(part[0])) + done,
            trialPlan.length,
            `${lastTrialText(last)}${next ? next.key : "done"}`,
          ),
      });
    },
    stopAfter: (r) => {
      const s = summariseSoFar();
      const verdicts = s.indexes.map((ix) => [ix.name, judgeIndex(s, ix).judgement] as const);
      const step = nextRound({
        ...r,
        words: { one: "round", many: "rounds", cap: "maxRepeats" },
        undecided: verdicts.filter(([, v]) => v === "inconclusive").map(([name]) => name),
        decided: verdicts.map(([name, v]) => `${name}: ${v}`).join(", "),
      });
      return step.more ? undefined : step.reason;
    },
  });
  const { rounds, stoppedBy } = adaptive;
  if (design.design === "sets") notes.push(...setFollowUps(summariseSoFar(), p));
  const speed = speedSpread(store.trials());
  if (speed)
    notes.push(
      `speed state before each run: ${speed.text.split("; ")[0]}; ${speed.flagged.length} of ${speed.n} beyond ×${SPEED_STATE_RATIO} of the median (each variant is paired with the runs around it)`,
    );
  await dropAllDatabases(server, variants.length);
  progress.finish(`${adaptive.plan.length} runs`);
  writeMetadata({ ...setup, adaptive: { plannedRounds: p.repeats, rounds, maxRounds: p.maxRepeats, stoppedBy } });
  return setup;
}
