/**
 * The one shape every notebook's experiment has. A notebook reads the same in all of them:
 *
 *   const params  = lab.<name>.params(profile, overrides);
 *   const run     = await lab.<name>.run(params, { profile });
 *   const summary = lab.<name>.summarise(run);
 *   const claims  = lab.<name>.claims(summary, run);
 *   lab.<name>.save(run, summary, claims);
 *   lab.<name>.show…(summary) …
 *
 * and `npm run reproduce`, the parameter checks and `lib/index.ts` are derived from the registry of
 * these objects (lib/experiments/registry.ts). Typing an experiment object as `Experiment<…>` makes
 * the compiler, not a reviewer, check that nothing is missing.
 */
import { median } from "simple-statistics";
import type { ProfileName } from "../params/profiles";
import type { RunMetadata } from "../results/metadata";
import type { DiskNeed } from "../targets/disk-need";
import type { ClaimCheck, ClaimPlan } from "../stats/claims";
import type { AnyClaimSet, ClaimSet } from "../stats/claim-engine";
import type { RunControl } from "./session";
import {
  estimateRun,
  OUTSIDE_CONSTANT,
  outsideTrials,
  outsideTrialsOf,
  storedRuns,
  probeCheck,
  referenceFromStored,
  type EtaModel,
  type Estimate,
  type MachineReference,
  type ProbeCheck,
  type Probes,
  type ReferenceRates,
  type ReferenceSet,
  type SetupEstimate,
} from "./eta";
import type { FaultCells } from "./faults";

/** What every experiment's run returns, at least. */
export interface ExperimentRun {
  readonly runId: string;
  readonly directory: string;
  readonly metadata: RunMetadata;
}

export interface Experiment<P extends object, R extends ExperimentRun, S> {
  /** Two digits, as in `--only 01`. */
  readonly id: string;
  /** Folder-style name: the notebook's file stem and the results folder's middle part. */
  readonly slug: string;
  readonly title: string;
  /** Path of the notebook, relative to the project root. */
  readonly notebook: string;
  readonly profiles: Readonly<Record<ProfileName, P>>;
  // Function-valued properties, not methods: each index.ts destructures them into the module's
  // exports (`lab.indexWriteCost.run(…)`), which a method's `this` would not survive.
  /** Resolves and checks the parameters; throws ParameterError on bad input, before anything starts. */
  readonly params: (profile: string, overrides?: Partial<P>) => P;
  /** Starts the servers, runs the trials (each appended as it ends), stops the servers. */
  readonly run: (params: P, control?: RunControl) => Promise<R>;
  /** Every figure the notebook shows, from the run's raw trials. */
  readonly summarise: (run: R) => S;
  /** The seed's claims as declared hypotheses, judged on this run (with their sensitivity). */
  readonly claims: (summary: S, run: R) => ClaimCheck[];
  /** Writes summary.json (summary + claims) and summary.csv beside the trials; returns the paths. */
  readonly save: (run: R, summary: S, claims: readonly ClaimCheck[]) => string[];
  /**
   * What a run with these params can decide on this machine, before it starts: each declaration's
   * prospect by the regime rule its verdict uses (stats/claims `planClaims`).
   */
  readonly plan?: (params: P) => ClaimPlan[];
  /** Its claims as declarations on the claims engine (stats/claim-engine), where migrated to it. */
  readonly claimSet?: ClaimSet<P, S, string>;
  /** The data directory's peak size for these params, as the notebook estimates it (targets/disk-need). */
  readonly disk?: (params: P) => DiskNeed;
  /** How its trials' time grows (its folder's `eta.ts`): the ETA before and during a run. */
  readonly estimate?: EtaModel<P>;
  /** The faults it offers to the fault matrix, and the small run they land in. */
  readonly faults?: FaultCells;
}

/** The registry's view of an experiment: what reproduce and the parameter checks need. */
export interface RegisteredExperiment {
  readonly id: string;
  readonly slug: string;
  readonly title: string;
  /** The notebook's path, relative to the project root. */
  readonly file: string;
  /** Resolves (and checks) the parameters; throws ParameterError on bad input. */
  resolve(profile: ProfileName, overrides: Record<string, unknown>): object;
  /** Each profile's parameter values (`--help`, docs/parameters.md). */
  readonly profiles: Readonly<Record<ProfileName, object>>;
  /**
   * Parameters that must be given (`--set`): such a notebook runs only when asked (`--only`) or when
   * one of them is given, and is refused before it starts when one is missing. Notebook 00 needs runs.
   */
  readonly requires?: readonly string[];
  /** What a run with these parameters can decide here (no server starts); absent for notebook 00. */
  prospect?(profile: ProfileName, overrides: Record<string, unknown>): ClaimPlan[];
  /** The data directory's peak size for these parameters, where the notebook estimates it. */
  disk?(profile: ProfileName, overrides: Record<string, unknown>): DiskNeed | undefined;
  /**
   * The ETA of a run with these parameters, minus the trials in `done` (a resume's), from this
   * machine's stored runs; undefined without a model or anything to fit it on.
   */
  readonly estimate?: (
    profile: ProfileName,
    overrides: Record<string, unknown>,
    done?: ReadonlySet<string>,
  ) => Estimate | undefined;
  /**
   * The wall of a run outside its trials (kernel, servers, summaries, charts) that `npm run
   * reproduce` adds to its ETA line; undefined where neither a stored run nor a reference says.
   */
  readonly outsideTrials?: () => SetupEstimate | undefined;
  /**
   * The ETA model's reference rates against this machine's stored runs under `root`
   * (`npm run eta:reference`): refitted from them, and how the current ones read them.
   */
  readonly etaReference?: {
    fit(root: string): { readonly rates: ReferenceRates; readonly sizes: readonly number[] } | undefined;
    check(root: string, probes: Probes, references?: readonly MachineReference[]): ProbeCheck[];
    /** The named constants a reference file of this machine takes from the stored runs under `root`. */
    constants(root: string): Record<string, number>;
    /** The model's reference files: their folder and content (undefined: the model has none). */
    readonly references?: ReferenceSet;
  };
  readonly faults?: FaultCells;
  /** Its declared claims, where it is on the claims engine: the engine's generated tests take every one. */
  readonly claimSet?: AnyClaimSet;
}

export function register<P extends object, R extends ExperimentRun, S>(e: Experiment<P, R, S>): RegisteredExperiment {
  return {
    id: e.id,
    slug: e.slug,
    title: e.title,
    file: e.notebook,
    profiles: e.profiles,
    resolve: (profile, overrides) => e.params(profile, overrides as Partial<P>),
    ...(e.plan
      ? {
          prospect: (profile: ProfileName, overrides: Record<string, unknown>) =>
            e.plan?.(e.params(profile, overrides as Partial<P>)) ?? [],
        }
      : {}),
    disk: (profile, overrides) => e.disk?.(e.params(profile, overrides as Partial<P>)),
    ...(e.estimate
      ? {
          estimate: estimateOf(e, e.estimate),
          etaReference: etaReferenceOf(e.slug, e.estimate),
          outsideTrials: () => (e.estimate ? outsideTrials(e.slug, e.estimate) : undefined),
        }
      : {}),
    ...(e.faults ? { faults: e.faults } : {}),
    ...(e.claimSet ? { claimSet: e.claimSet } : {}),
  };
}

function estimateOf<P extends object, R extends ExperimentRun, S>(
  e: Experiment<P, R, S>,
  model: EtaModel<P>,
): NonNullable<RegisteredExperiment["estimate"]> {
  return (profile, overrides, done) => estimateRun(e.slug, model, e.params(profile, overrides as Partial<P>), done);
}

function etaReferenceOf<P>(slug: string, model: EtaModel<P>): NonNullable<RegisteredExperiment["etaReference"]> {
  return {
    fit: (root) => referenceFromStored(slug, model, root),
    check: (root, probes, references) => probeCheck(slug, model, root, probes, references),
    constants: (root) => {
      const outside = storedRuns({ root, notebook: slug })
        .map(({ dir }) => outsideTrialsOf(dir, model.setup !== undefined))
        .filter((x): x is number => x !== undefined);
      return {
        ...model.constants?.({ root, notebook: slug }),
        ...(outside.length ? { [OUTSIDE_CONSTANT]: median(outside) } : {}),
      };
    },
    ...(model.references ? { references: model.references } : {}),
  };
}
