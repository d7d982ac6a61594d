/**
 * Notebook 06's experiment: start the lab's server, load the reader's schema and data (or a sample
 * of their server) once into a template, build every variant from it, check the workload, then run
 * rounds of every variant (in a Williams order) while an index is undecided and the budget lasts.
 */
import type { YourIndexesParams } from "./params";
import { nextRound } from "../../stats/adaptive";
import { SPEED_STATE_RATIO, speedSpread } from "../../stats/speed";
import { MIN_COVERAGE, repeatsForCoverage } from "../../stats/claims";
import type { ServerSpec } from "../../targets/types";
import { memoryAndWalSettings } from "../../engines/postgres/server-settings";
import { withActivity } from "../../workloads/server-activity";
import { listTables } from "./workload/catalog";
import {
  buildVariants,
  createTemplate,
  dropAllDatabases,
  fillFromFile,
  workloadDatabases,
  withDatabase,
  type BuiltVariant,
  type LoadedTemplate,
} from "./workload/databases";
import { runTrials } from "../../workloads/trials";
import {
  checkReads,
  checkWorkload,
  planRounds,
  type ReadCheck,
  trialRunner,
  type PlannedTrial,
  type WorkloadCheck,
  type YourIndexesCondition,
  type YourIndexesTrial,
} from "./workload/run-trials";
import {
  readSourceStats,
  sampleFromSource,
  unusedIndexes,
  UnusedIndexesError,
  type SourceInfo,
} from "./workload/sample";
import { readWorkload, updateStatements, type UpdateStatement, type WorkloadScript } from "./workload/scripts";
import {
  checkGroups,
  existingToJudge,
  indexSets,
  planVariants,
  writtenIndexNames,
  type Design,
  type Judged,
  type Variant,
} from "./workload/variants";
import { runAdaptiveRounds } from "../adaptive-rounds";
import type { ExperimentRun } from "../contract";
import { pgbenchOnPostgres } from "../servers";
import { withSession, type RunControl } from "../session";
import { estimateRun } from "../eta";
import { chooseDesign, estimate as eta, type DesignChoice } from "./eta";
import { judgeIndex } from "./claims";
import { summarise, type SummaryContext, type YourIndexesSummary } from "./summarise";

export const NOTEBOOK = "06-your-indexes";

/** A variant as built: its template database, its indexes, what it is. */
export type VariantInfo = BuiltVariant & Pick<Variant, "label">;

/** The run: its trials, and what was loaded, built and checked before them. */
export interface YourIndexesRun extends ExperimentRun {
  readonly params: YourIndexesParams;
  readonly trials: readonly YourIndexesTrial[];
  readonly template: LoadedTemplate;
  readonly variants: readonly VariantInfo[];
  readonly judged: readonly Judged[];
  readonly scripts: readonly WorkloadScript[];
  readonly updates: readonly UpdateStatement[];
  readonly workloadCheck: WorkloadCheck;
  /** The read scripts (`reads`), each timed after every write run; [] for none. */
  readonly reads: readonly WorkloadScript[];
  /** Their 1-s read-only check before the rounds. */
  readonly readCheck?: ReadCheck;
  readonly source?: SourceInfo;
  /** Which design ran (one at a time, or the sets first) and why. */
  readonly design?: DesignChoice;
}

export function serverSpec(p: YourIndexesParams): ServerSpec {
  const settings = {
    ...memoryAndWalSettings(p),
    synchronous_commit: p.synchronousCommit,
    // New WAL segments are created at the start of a run and recycled afterwards: zero-filling
    // them made the first round's runs several times slower than the next (654 vs 3,670 TPS at
    // smoke scale here), a cost of the lab's fresh server, not of any index.
    wal_init_zero: "off",
    track_io_timing: "on",
    max_connections: Math.max(100, p.clients + 20),
  };
  return {
    engine: "postgresql",
    name: "06-pg",
    settings,
    uses: {
      notebook: "06 your indexes",
      // pgbench's clients, the check's one, the admin session and the speed probe.
      clients: p.clients + 3,
      databases: workloadDatabases(p),
      extensions: [
        { name: "pg_walinspect", measures: "B-tree leaf inserts and splits per transaction, counted in the WAL" },
      ],
    },
  };
}

/** What the summary needs from a run besides its trials. */
export function summaryContext(
  run: Pick<YourIndexesRun, "judged" | "variants" | "updates" | "source" | "params"> & {
    readonly reads?: readonly { readonly name: string }[];
  },
): SummaryContext {
  return {
    judged: run.judged,
    indexes: new Map(run.variants.map((v) => [v.id, v.indexes])),
    updates: run.updates,
    ...(run.source ? { sourceUsage: run.source.indexes } : {}),
    ...(run.source?.statsReset ? { statsReset: run.source.statsReset } : {}),
    equivalenceMargin: run.params.equivalenceMargin,
    readScripts: (run.reads ?? []).map((r) => r.name),
  };
}

/**
 * Under the sets design, what each set's cost says of its members: one whose interval lies wholly
 * beyond the margin is worth judging member by member (the parameters that do it); one that does
 * not needs no more for the reader's question.
 */
export function setFollowUps(s: YourIndexesSummary, p: YourIndexesParams): string[] {
  const pc = (x: number) => `${(x * 100).toFixed(1)} %`;
  const m = `±${pc(p.equivalenceMargin)}`;
  return s.indexes.flatMap((ix) => {
    if (ix.kind !== "set" || !ix.cost || !ix.members) return [];
    const c = ix.cost;
    const at = `${pc(c.estimate)} [${pc(c.low)}–${pc(c.high)}]`;
    if (c.coverage < MIN_COVERAGE)
      return [
        `${ix.name} costs ${at} of throughput on ${c.n} rounds, an interval that covers the median with only ` +
          `${Math.round(c.coverage * 100)} %: too few rounds to say whether its members need judging one at a time`,
      ];
    if (c.low > p.equivalenceMargin)
      return [
        `${ix.name} costs ${at}, beyond your margin ${m}: its ${ix.members.length} indexes are worth judging one ` +
          `at a time (existing: ${JSON.stringify(ix.members)}, oneAtATime: "always"; or groups of the ones you ask about)`,
      ];
    return [
      `${ix.name} costs ${at} of throughput, not wholly beyond your margin ${m}: its members were not judged one at a time`,
    ];
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
      `existing: "unused": none of the source's unused indexes (${names.join(", ")}) is in the schema file; ` +
        "is it the source's schema (pg_dump --schema-only)?",
    );
  return here;
}

/** Candidate i's name as written ("CREATE INDEX name ON …"), else "candidate i+1" until the server names it. */
function writtenName(statement: string, i: number): string {
  return writtenIndexNames(statement)[0] ?? `candidate ${i + 1}`;
}

export async function run(p: YourIndexesParams, control: RunControl = {}): Promise<YourIndexesRun> {
  const started = Date.now();
  const scripts = readWorkload(p.workload);
  const updates = updateStatements(scripts);
  // Read scripts run alone, so a weight means nothing; their names are their own (a read script
  // may share a file name with a workload script: they never run in the same pgbench).
  const reads = readWorkload(p.reads);
  const { target, cpus, memoryGiB } = p;
  // existing: "unused" is read from the source's statistics before anything starts: a window too
  // short, or nothing unused, is refused with no server started.
  const unused =
    p.existing === "unused" ? unusedIndexes(await readSourceStats(p.sampleFrom), p.minStatsDays) : undefined;
  // The rounds planned so far: an adaptive round added joins the time left.
  let roundsSoFar = p.repeats;
  const estimate = (done: ReadonlySet<string>) => estimateRun(NOTEBOOK, eta, { ...p, repeats: roundsSoFar }, done);
  const options = {
    notebook: NOTEBOOK,
    title: "06 your indexes",
    params: p,
    control,
    target,
    cpus,
    memoryGiB,
    estimate,
  };
  return withSession<YourIndexesCondition, YourIndexesRun>(
    { ...options, specs: [serverSpec(p)] },
    async ({ store, progress, servers, signal, notes, metadata, writeMetadata }) => {
      const { server, runner } = await pgbenchOnPostgres(servers, "06", notes);
      // 1. The schema, the names to judge (checked against it before any data), the data.
      let drops: string[] = [];
      const candidateNames = p.candidates.map(writtenName);
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
              checkGroups(p.groups, indexes, candidateNames);
            },
            fill: p.sampleFrom
              ? async (srv, database, sig) => {
                  const tables = await withDatabase(srv, database, listTables);
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
      // 2. The design (decided from the parameters and the schema's indexes), then the variants,
      // each built once (a candidate the server refuses stops the run here).
      const design = chooseDesign(p, drops);
      const planFor = (names: readonly string[], d: Design = design.design) =>
        planVariants(drops, p.candidates, names, indexSets(p.groups, drops, names, d), d);
      notes.push(`design: ${design.why}`);
      let plan = planFor(candidateNames);
      progress.update(0, 1, `building ${plan.variants.length} variants…`);
      const built: BuiltVariant[] = await buildVariants(
        server,
        plan.variants,
        p.candidates,
        p.maintenanceWorkMemMB,
        signal,
      );
      // The names the server gave the candidates (an unnamed CREATE INDEX gets one).
      const named = p.candidates.map(
        (_, i) => built.find((b) => b.id === `add:${i + 1}`)?.created[0] ?? candidateNames[i],
      );
      plan = planFor(named);
      const variants: VariantInfo[] = plan.variants.map((v: Variant) => {
        const b = built.find((x) => x.id === v.id);
        if (!b) throw new Error(`variant ${v.id} was not built`);
        return { ...b, label: v.label };
      });
      const baseline = variants[0];
      // 3. The workload: every script runs and something is written, or the run stops here.
      progress.update(0, 1, "checking the workload (each script for 1 s)…");
      const defines = { scale: p.scale };
      const workloadCheck = await checkWorkload(server, runner, baseline.database, { scripts, defines }, signal);
      // The read scripts: each runs, and only reads (the server refuses a write in a read-only
      // session), or the run stops here.
      if (reads.length) progress.update(0, 1, "checking the read scripts (each for 1 s, read-only)…");
      const readCheck = reads.length
        ? await checkReads(server, runner, baseline.database, { reads, defines }, signal)
        : undefined;
      notes.push(
        `template: ${Object.entries(template.rows)
          .map(([t, n]) => `${t} ${n.toLocaleString("en-US")} rows`)
          .join(
            ", ",
          )} (${(template.databaseBytes / 2 ** 20).toFixed(1)} MiB); every run starts from a FILE_COPY clone of its variant`,
        `the workload writes ${workloadCheck.writtenTables.join(", ")}` +
          (template.tables.length > workloadCheck.writtenTables.length
            ? `; never ${template.tables.filter((t) => !workloadCheck.writtenTables.includes(t)).join(", ")}`
            : ""),
        ...(reads.length
          ? [
              `after every write run, each read script (${reads.map((r) => r.name).join(", ")}) runs alone for ` +
                `${p.readSeconds} s on the same clone, in read-only sessions, with the same clients; its latency ` +
                "is paired per round like the write cost, and each index's scans during it are counted (pg_stat_user_indexes)",
            ]
          : []),
        `every round runs the baseline between every two variants (B V₁ B V₂ … B), each variant's cost against the two baseline runs around it; the variants' order is a Williams design over rounds (every variant at every position, and right after every other variant, equally often)`,
      );
      if (!template.walInspect)
        notes.push(
          `no pg_walinspect here (${template.walInspectError}): B-tree inserts per transaction are not measured`,
        );
      if (unused) notes.push(unused.text);
      if (source)
        notes.push(
          `data: a sample of ${source.source} (PostgreSQL ${source.version}), read in one READ ONLY transaction`,
        );
      const extra = () => ({
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
      });
      writeMetadata(extra());
      // 4. The rounds.
      const ids = variants.map((v) => v.id);
      let trialPlan: PlannedTrial[] = planRounds(ids, p.repeats);
      const runOne = trialRunner({
        server,
        runner,
        databases: new Map(variants.map((v) => [v.id, v.database])),
        settings: {
          clients: p.clients,
          threads: p.threads,
          durationSeconds: p.durationSeconds,
          scripts,
          defines,
          walInspect: template.walInspect,
          reads,
          readSeconds: p.readSeconds,
        },
        signal,
        onNote: (text) => notes.push(text),
        onPhase: (planned, phase) =>
          progress.update(trialPlan.indexOf(planned), trialPlan.length, `${planned.key}: ${phase}…`),
        onProgress: (planned, point) =>
          progress.update(
            trialPlan.indexOf(planned),
            trialPlan.length,
            `${planned.key}: ${point.second.toFixed(0)} / ${p.durationSeconds} s · ${point.tps.toFixed(0)} tps`,
          ),
      });
      const runPart = (part: readonly PlannedTrial[]) =>
        runTrials(part, runOne, {
          store,
          signal,
          // One pgbench run per trial, all of the same length: they set each other's stall bound.
          watch: (planned) => ({ engine: "postgresql", what: `${planned.key} (pgbench)`, group: "pgbench run" }),
          onProgress: ({ done, next, last }) =>
            progress.update(
              Math.max(0, trialPlan.indexOf(part[0])) + done,
              trialPlan.length,
              `${last ? `last: ${last.key} ${last.pgbench?.summary.tps.toFixed(0)} tps · ` : ""}${next ? next.key : "done"}`,
            ),
        });
      const context = summaryContext({ judged: plan.judged, variants, updates, source, params: p, reads });
      // The planned rounds one at a time (a round past those a verdict needs is not started when it
      // would end after the budget), then one more while an index is inconclusive and the budget can
      // reach a verdict.
      const { rounds, stoppedBy, cut } = await runAdaptiveRounds({
        planned: p.repeats,
        needed: repeatsForCoverage(MIN_COVERAGE),
        budgetSeconds: p.budgetSeconds,
        startedAt: started,
        many: "rounds",
        signal,
        runRound: async (round) => {
          const part = round > p.repeats ? planRounds(ids, round, round) : trialPlan.filter((x) => x.repeat === round);
          if (round > p.repeats) trialPlan = [...trialPlan, ...part];
          roundsSoFar = Math.max(roundsSoFar, round);
          await runPart(part);
        },
        stopAfter: (done, pace) => {
          const s = summarise(store.trials(), context, p.durationSeconds, p.clients);
          const verdicts = s.indexes.map((ix) => [ix.name, judgeIndex(s, ix).judgement] as const);
          const step = nextRound({
            planned: p.repeats,
            maxRepeats: p.maxRepeats,
            budgetSeconds: p.budgetSeconds,
            needed: repeatsForCoverage(MIN_COVERAGE),
            words: { one: "round", many: "rounds", cap: "maxRepeats" },
            done,
            elapsedSeconds: pace.elapsedSeconds,
            secondsPerRound: pace.secondsPerRound,
            undecided: verdicts.filter(([, v]) => v === "inconclusive").map(([name]) => name),
            decided: verdicts.map(([name, v]) => `${name}: ${v}`).join(", "),
          });
          return step.more ? undefined : step.reason;
        },
      });
      trialPlan = trialPlan.filter((x) => x.repeat <= rounds);
      if (cut) notes.push(cut);
      notes.push(
        `adaptive design: ${stoppedBy} (planned ${p.repeats} rounds, at most ${p.maxRepeats}, budget ${p.budgetSeconds} s)`,
      );
      if (design.design === "sets")
        notes.push(...setFollowUps(summarise(store.trials(), context, p.durationSeconds, p.clients), p));
      const speed = speedSpread(store.trials());
      // The spread, and how many runs were in another state; each run's own probe is in its record.
      if (speed)
        notes.push(
          `speed state before each run: ${speed.text.split("; ")[0]}; ${speed.flagged.length} of ${speed.n} ` +
            `beyond ×${SPEED_STATE_RATIO} of the median (each variant is paired with the runs around it)`,
        );
      await dropAllDatabases(server, variants.length);
      progress.finish(`${trialPlan.length} runs`);
      writeMetadata({
        ...extra(),
        notes,
        adaptive: { plannedRounds: p.repeats, rounds, maxRounds: p.maxRepeats, stoppedBy },
      });
      const { runId, directory } = store;
      const trials = store.trials() as YourIndexesTrial[];
      return { runId, directory, params: p, metadata: { ...metadata, notes }, trials, ...extra() };
    },
  );
}

export type { RunControl } from "../session";
