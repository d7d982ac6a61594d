/**
 * The experiment base: a notebook supplies its parts (parameter checks, servers, workload, summary, claims, CSV rows,
 * display) and `defineExperiment` derives the rest: identity from the slug, the session, the ETA and the prospect,
 * the sensitivity pass, save, showRun, showClaims and the registry's view.
 */
import fs from "node:fs";
import path from "node:path";
import { withProfile, type ProfileName } from "../params/profiles";
import { rejectUnknownKeys } from "../params/validate";
import { REOPEN_ENV, requestedRun, RunStore, type TrialRecord } from "../results/run-store";
import { resolveRun, type StoredRun } from "../results/stored-runs";
import { summaryCsv } from "../results/summary-csv";
import type { RunMetadata } from "../results/metadata";
import { judgeOne, plan as planClaims, type ClaimSet, type Without } from "../stats/claim-engine";
import { planText, type ClaimCheck, type ClaimPlan } from "../stats/claims";
import type { DiskNeed } from "../targets/disk-need";
import { LIMIT_PARAMS, TARGET_PARAMS, type TargetParams } from "./target-params";
import type { ServerSpec } from "../targets/types";
import { showClaimsAndUndeclared } from "../display/claims";
import { showRunHeader } from "../display/run-header";
import { showTable } from "../display/table";
import { escapeHtml, show } from "../display/output";
import { etaEntries, type RegisteredExperiment } from "./contract";
import { estimateRun, type EtaModel } from "./eta";
import type { FaultCells } from "./faults";
import { withSession, type ExperimentSession, type RunControl, type SessionOptions } from "./session";
import type { PlannedTrial } from "../workloads/trials";

/** The parameters the base reads. */
export type BaseParams = TargetParams & { readonly cpus?: number; readonly memoryGiB?: number };

/** A finished run: its id, folder, metadata, parameters and trials, and what the workload adds. */
export type RunOf<P, T, X extends object = object> = {
  readonly runId: string;
  readonly directory: string;
  readonly metadata: RunMetadata;
  readonly params: P;
  readonly trials: readonly T[];
} & X;

type AnyTrial = TrialRecord<object, string>;
/** A trial record's condition type. */
export type ConditionOf<T extends AnyTrial> = T["condition"];

/** What the workload gets: the parameters, the plan (where the notebook has one), the session and the control. */
export interface Work<P, T extends AnyTrial, PT extends PlannedTrial<ConditionOf<T>>, B = undefined> {
  readonly params: P;
  readonly plan: readonly PT[];
  readonly session: ExperimentSession<ConditionOf<T>>;
  readonly control: RunControl;
  /** Date.now() when the run was called, before its servers started: an adaptive design's budget counts from it. */
  readonly startedAt: number;
  /** What the ETA plans for from now on: an added adaptive round; a phase's model and whether its setup is done. */
  readonly estimateAs: (p: P, phase?: EtaPhase<P>) => void;
  /** What `before` read, before the session started. */
  readonly before: B;
}

/** What a phased run tells its ETA as it goes (03: its template's level once made, then its setup done). */
export type EtaPhase<P> = Readonly<{ model?: EtaModel<P>; setupDone?: boolean }>;

/** An ETA over the plan the work runs: so the keys the estimate leaves out as done are the keys the run stores. */
export type PlanEta<P, PT> = Omit<EtaModel<P>, "units"> & {
  readonly unit: (t: PT, p: P) => { readonly size: number; readonly fixedSeconds?: number; readonly kind?: string };
};

/** A CSV row: undefined and null are both an empty cell. */
type CsvRow = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** What a notebook supplies; the defaults of its type parameters are defineExperiment's. */
export interface ExperimentDefinition<
  P extends BaseParams,
  T extends AnyTrial,
  S,
  X extends object,
  PT extends PlannedTrial<ConditionOf<T>>,
  B,
> {
  /** "07-fillfactor-hot": the id (07), the notebook's file, the results folder and the server names derive from it. */
  readonly slug: string;
  readonly title: string;
  readonly profiles: Readonly<Record<ProfileName, P>>;
  /** Checks and normalises the merged parameters past the base's; `overrides`: what the reader set (04: `sets`). */
  readonly check: (p: P, overrides: Partial<P>) => P;
  /** The servers started before the work (named by `serverName`). */
  readonly servers: (p: P) => ServerSpec[];
  /** The trials these parameters plan, built once a run: the work runs them, the ETA times them. */
  readonly plan?: (p: P) => readonly PT[];
  /** Read before the session starts, so that a refusal leaves no server started and no results folder. */
  readonly before?: (p: P) => Promise<B>;
  /** Runs the trials into the session's store; returns what the run carries besides its trials (kept as JSON). */
  readonly work: (w: Work<P, T, PT, B>) => Promise<X>;
  /** Every figure the notebook shows, from the run's trials (annotate `trials`: it gives the trial type). */
  readonly summarise: (trials: readonly T[], run: RunOf<P, T, X>) => S;
  readonly claims: ClaimSet<P, S, string>;
  /** Where the claims depend on the run (06: three per judged index): the set a run plans and the set it judges. */
  readonly claimsFor?: {
    readonly params: (p: P) => ClaimSet<P, S, string>;
    readonly summary: (s: S) => ClaimSet<P, S, string>;
  };
  /** The claims' prospect with what only this machine knows before the run (01: MongoDB cannot start here). */
  readonly prospectHere?: (plans: ClaimPlan[], p: P) => ClaimPlan[];
  /** The judged claims with what only the run knows (01: why MongoDB did not start). */
  readonly explain?: (checks: ClaimCheck[], run: RunOf<P, T, X>) => ClaimCheck[];
  /** The claims table's caption, where its claims are not a seed's (07: PostgreSQL's documentation). */
  readonly claimsCaption?: string;
  /** The trials summarised without the flagged ones, for sensitivity lines; per claim where each has its own (06). */
  readonly without?: (run: RunOf<P, T, X>, summary: S) => Without<S> | ((claimId: string) => Without<S>) | undefined;
  /** summary.csv's rows; summary.json holds `toJson(summary)` (default: the summary) and the claims. */
  readonly csvRows: (summary: S, run: RunOf<P, T, X>) => readonly CsvRow[];
  /** More CSV files beside summary.csv, by file name (06: decision.csv). */
  readonly moreCsv?: (summary: S, run: RunOf<P, T, X>) => Readonly<Record<string, readonly CsvRow[]>>;
  readonly toJson?: (summary: S, run: RunOf<P, T, X>) => unknown;
  /** showRun's section after the header and the failed trials (03: the loaded data every round is cloned from). */
  readonly showSetup?: (run: RunOf<P, T, X>) => void;
  /** What trials.jsonl holds, said once the server is stopped: "rounds (pgbench output, counters, …)". */
  readonly rawTrials?: string;
  readonly disk?: (p: P) => DiskNeed;
  /** How the trials' time grows: a model over `plan`'s trials, or a model of its own (an adaptive plan). */
  readonly eta?: PlanEta<P, PT> | EtaModel<P>;
  readonly faults?: FaultCells;
}

const SLUG = /^(\d\d)-[a-z0-9]+(-[a-z0-9]+)*$/;

/** A server's name in a run: the notebook's id and the engine's short name ("07-pg"). */
export const serverName = (slug: string, short: string): string => `${slug.slice(0, 2)}-${short}`;

export function defineExperiment<
  P extends BaseParams,
  T extends AnyTrial,
  S,
  X extends object = object,
  PT extends PlannedTrial<ConditionOf<T>> = PlannedTrial<ConditionOf<T>>,
  B = undefined,
>(d: ExperimentDefinition<P, T, S, X, PT, B>) {
  type C = ConditionOf<T>;
  const id = SLUG.exec(d.slug)?.[1];
  if (!id) throw new Error(`"${d.slug}" is not a notebook slug (two digits, a dash, lower-case words)`);
  const known = Object.keys(d.profiles.default);
  type Run = RunOf<P, T, X>;

  const params = (profile: string, overrides: Partial<P> = {}): P => {
    rejectUnknownKeys(d.slug, overrides, known);
    const p = withProfile(d.profiles, profile, overrides);
    const base: P = {
      ...p,
      target: TARGET_PARAMS.target.check("target", p.target),
      ...(p.cpus === undefined ? {} : { cpus: LIMIT_PARAMS.cpus.check("cpus", p.cpus) }),
      ...(p.memoryGiB === undefined ? {} : { memoryGiB: LIMIT_PARAMS.memoryGiB.check("memoryGiB", p.memoryGiB) }),
    };
    return d.check(base, overrides);
  };
  const prospect = (p: P): ClaimPlan[] => {
    const plans = planClaims(d.claimsFor?.params(p) ?? d.claims, p);
    return d.prospectHere ? d.prospectHere(plans, p) : plans;
  };
  const eta = etaModel(d.eta, d.plan);

  const run = async (p: P, control: RunControl = {}): Promise<Run> => {
    // `npm run reproduce -- --reopen <id>`: the notebook shows that stored run; nothing starts, nothing runs.
    const reopen = requestedRun(REOPEN_ENV, d.slug);
    if (reopen) return open(reopen);
    const startedAt = Date.now();
    const before = (await d.before?.(p)) as B;
    const plan = d.plan?.(p) ?? [];
    const model = etaModel(d.eta, () => plan);
    let etaParams = p;
    let phase: EtaPhase<P> = {};
    const options: SessionOptions = {
      notebook: d.slug,
      // The progress line's short title, from the slug: "03 over indexing".
      title: `${id} ${d.slug.slice(3).replace(/-/g, " ")}`,
      params: p,
      control,
      specs: d.servers(p),
      target: p.target,
      ...(p.cpus === undefined ? {} : { cpus: p.cpus }),
      ...(p.memoryGiB === undefined ? {} : { memoryGiB: p.memoryGiB }),
      prospect: planText(prospect(p)),
      estimate:
        model &&
        ((done) => estimateRun(d.slug, phase.model ?? model, etaParams, done, undefined, undefined, phase.setupDone)),
    };
    return withSession<C, Run>(options, async (session) => {
      const estimateAs = (q: P, next: EtaPhase<P> = {}): void => {
        etaParams = q;
        phase = { ...phase, ...next };
      };
      const extra = await d.work({ params: p, plan, session, control, startedAt, estimateAs, before });
      const { store, metadata } = session;
      store.writeSummary(EXTRAS_FILE, storedExtras(extra));
      const base = { runId: store.runId, directory: store.directory, metadata, params: p };
      return { ...extra, ...base, trials: store.trials() as unknown as readonly T[] };
    });
  };

  /**
   * A stored run of this notebook, as `run` returned it: by id, unique prefix, folder, or "latest of notebook NN"
   * (the default). Its tables, charts and claims then show with this lab's code, without measuring again.
   */
  const open = (ref = `latest of notebook ${id}`): Run => {
    const stored = resolveRun(ref);
    if (stored.notebook !== d.slug) {
      throw new Error(`"${ref}" is a run of ${stored.notebook || "no known notebook"}, not of ${d.slug}`);
    }
    const refused = unopenable(stored);
    if (refused || !stored.metadata || !stored.params) {
      const why = refused?.why ?? "no metadata.json or params.json";
      throw new Error(`run ${stored.id} cannot be opened (${why}); lab.frame("${stored.id}") reads its trials`);
    }
    const extra = readExtras(path.join(stored.directory, EXTRAS_FILE));
    const base = { runId: stored.id, directory: stored.directory, metadata: stored.metadata, params: stored.params };
    const r = { ...extra, ...base, trials: stored.trials } as unknown as Run;
    opened.add(r);
    const when = stored.metadata.startedAt ?? "on an earlier day";
    const text =
      `Opened, not measured now: run ${stored.id}, measured ${when}, ` +
      "shown with this lab's code; its files stay as they are.";
    show().html(`<p><b>${escapeHtml(text)}</b></p>`);
    return r;
  };
  /** Runs given back by `open`: `save` leaves their files as they were measured and judged. */
  const opened = new WeakSet<object>();

  const claims = (summary: S, r: Run): ClaimCheck[] => {
    const set = d.claimsFor?.summary(summary) ?? d.claims;
    const without = d.without?.(r, summary);
    const withoutFor = (claimId: string) => (typeof without === "function" ? without(claimId) : without);
    const checks = set.claims.map((c) => judgeOne(set, c.id, summary, withoutFor(c.id)));
    return d.explain ? d.explain(checks, r) : checks;
  };

  const save = (r: Run, summary: S, checks: readonly ClaimCheck[]): string[] => {
    if (opened.has(r)) return [];
    const where = { notebook: r.metadata.notebook, params: r.metadata.params, root: path.dirname(r.directory) };
    const store = RunStore.open<C>({ ...where, resumeId: r.runId });
    const csv = { "summary.csv": d.csvRows(summary, r), ...d.moreCsv?.(summary, r) };
    return [
      store.writeSummary("summary.json", { summary: d.toJson ? d.toJson(summary, r) : summary, claims: checks }),
      ...Object.entries(csv).map(([file, rows]) =>
        store.writeSummary(file, summaryCsv(rows, { runId: store.runId, notebook: d.slug })),
      ),
    ];
  };

  const showRun = (r: Run): void => {
    showRunHeader(r.metadata, r.directory);
    const failed = r.trials.filter((t) => t.status === "failed").map((t) => ({ trial: t.key, error: t.error ?? "" }));
    if (failed.length) showTable(failed, { caption: `${failed.length} trial(s) failed` });
    d.showSetup?.(r);
  };

  const resolve = (profile: ProfileName, overrides: Record<string, unknown>): P =>
    params(profile, overrides as Partial<P>);
  const registered: RegisteredExperiment = {
    id,
    slug: d.slug,
    title: d.title,
    file: `notebooks/${d.slug}.ipynb`,
    profiles: d.profiles,
    resolve,
    prospect: (profile, overrides) => prospect(resolve(profile, overrides)),
    disk: (profile, overrides) => d.disk?.(resolve(profile, overrides)),
    ...(eta ? etaEntries(d.slug, eta, resolve) : {}),
    ...(d.faults ? { faults: d.faults } : {}),
    claimSet: d.claims,
  };

  return {
    id,
    slug: d.slug,
    title: d.title,
    params,
    run,
    open,
    summarise: (r: Run): S => d.summarise(r.trials, r),
    claims,
    save,
    prospect,
    showRun,
    showClaims: (checks: readonly ClaimCheck[]): void => showClaimsAndUndeclared(checks, d.claims, d.claimsCaption),
    showStopped: (r: { readonly directory: string }): void =>
      show().html(
        `<p>The server was stopped and its data directory or container removed. Raw ${d.rawTrials ?? "trials"}: <code>${escapeHtml(r.directory)}/trials.jsonl</code>.</p>`,
      ),
    registered,
  };
}

function etaModel<P, PT extends PlannedTrial<object>>(
  eta: PlanEta<P, PT> | EtaModel<P> | undefined,
  plan: ((p: P) => readonly PT[]) | undefined,
): EtaModel<P> | undefined {
  if (!eta || !("unit" in eta)) return eta;
  const { unit, ...rest } = eta;
  if (!plan) throw new Error("an ETA model over the plan needs the experiment's plan");
  return {
    ...rest,
    units: (p) =>
      plan(p).map((t) => {
        const u = unit(t, p);
        return { key: t.key, size: u.size, fixedSeconds: u.fixedSeconds ?? 0, ...(u.kind ? { kind: u.kind } : {}) };
      }),
  };
}

/** What `work` returned, kept beside the trials so that `open` gives the run back whole. */
export const EXTRAS_FILE = "extras.json";

/** Why a stored run cannot be opened (`open`, `--reopen`): it did not finish, or it kept no EXTRAS_FILE. */
export function unopenable(
  run: Pick<StoredRun, "state" | "stateWhy" | "directory">,
): { readonly finished: boolean; readonly why: string } | undefined {
  if (run.state !== "finished") return { finished: false, why: run.stateWhy };
  if (!fs.existsSync(path.join(run.directory, EXTRAS_FILE)))
    return { finished: true, why: `no ${EXTRAS_FILE}: it was stored before runs kept one` };
  return undefined;
}
const MAP_TAG = "$map";

/** JSON has no Map (01 keeps why each engine was unavailable in one): a Map is kept as its tagged entries. */
export function storedExtras(extra: object): unknown {
  return JSON.parse(JSON.stringify(extra, (_key, v: unknown) => (v instanceof Map ? { [MAP_TAG]: [...v] } : v)));
}

export function readExtras(file: string): object {
  const isTaggedMap = (v: unknown): v is { [MAP_TAG]: [unknown, unknown][] } =>
    typeof v === "object" && v !== null && Array.isArray((v as Record<string, unknown>)[MAP_TAG]);
  try {
    const value = JSON.parse(fs.readFileSync(file, "utf8"), (_key, v: unknown) =>
      isTaggedMap(v) ? new Map(v[MAP_TAG]) : v,
    ) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object");
    return value;
  } catch (error) {
    throw new Error(`${file} is unreadable`, { cause: error });
  }
}
