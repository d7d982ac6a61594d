import { median } from "simple-statistics";
import type { ProfileName } from "../params/profiles";
import type { DiskNeed } from "../targets/disk-need";
import type { ClaimPlan } from "../stats/claims";
import type { AnyClaimSet } from "../stats/claim-engine";
import {
  estimateRun,
  OUTSIDE_CONSTANT,
  outsideTrials,
  storedOutsideTrials,
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

/** The registry's view of a notebook (defineExperiment builds it): what reproduce, the parameter checks, the ETA and the tests need. */
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

/** The registry's ETA entries of a notebook with an ETA model; `resolve` checks the parameters as the notebook does. */
export function etaEntries<P>(
  slug: string,
  model: EtaModel<P>,
  resolve: (profile: ProfileName, overrides: Record<string, unknown>) => P,
): Pick<RegisteredExperiment, "estimate" | "etaReference" | "outsideTrials"> {
  return {
    estimate: (profile, overrides, done) => estimateRun(slug, model, resolve(profile, overrides), done),
    outsideTrials: () => outsideTrials(slug, model),
    etaReference: {
      fit: (root) => referenceFromStored(slug, model, root),
      check: (root, probes, references) => probeCheck(slug, model, root, probes, references),
      constants: (root) => {
        const outside = storedOutsideTrials(slug, model, root);
        return {
          ...model.constants?.({ root, notebook: slug }),
          ...(outside.length ? { [OUTSIDE_CONSTANT]: median(outside) } : {}),
        };
      },
      ...(model.references ? { references: model.references } : {}),
    },
  };
}
