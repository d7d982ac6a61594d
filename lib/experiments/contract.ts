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

type Overrides = Record<string, unknown>;

/** A notebook as the registry sees it (defineExperiment builds it): what reproduce, its checks, ETA and tests need. */
export interface RegisteredExperiment {
  readonly id: string;
  readonly slug: string;
  readonly title: string;
  /** The notebook's path, relative to the project root. */
  readonly file: string;
  /** Resolves (and checks) the parameters; throws ParameterError on bad input. */
  resolve(profile: ProfileName, overrides: Overrides): object;
  /** Each profile's parameter values (`--help`, docs/parameters.md). */
  readonly profiles: Readonly<Record<ProfileName, object>>;
  /** Must be given (`--set`): the notebook runs only with `--only` or one of them, and is refused without all (00). */
  readonly requires?: readonly string[];
  /** What a run with these parameters can decide here (no server starts); absent for notebook 00. */
  prospect?(profile: ProfileName, overrides: Overrides): ClaimPlan[];
  /** The data directory's peak size for these parameters, where the notebook estimates it. */
  disk?(profile: ProfileName, overrides: Overrides): DiskNeed | undefined;
  /** The ETA of these parameters minus the trials in `done` (a resume's); undefined without a model or data to fit. */
  readonly estimate?: (profile: ProfileName, overrides: Overrides, done?: ReadonlySet<string>) => Estimate | undefined;
  /** The wall outside the trials (kernel, servers, summaries, charts) that reproduce adds to its ETA line. */
  readonly outsideTrials?: () => SetupEstimate | undefined;
  /** `npm run eta:reference`: the rates refitted on the runs stored under `root`, and how the current ones fit them. */
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
  resolve: (profile: ProfileName, overrides: Overrides) => P,
): Pick<RegisteredExperiment, "estimate" | "etaReference" | "outsideTrials"> {
  return {
    estimate: (profile, overrides, done) => estimateRun(slug, model, resolve(profile, overrides), done),
    outsideTrials: () => outsideTrials(slug, model),
    etaReference: {
      fit: (root) => referenceFromStored(slug, model, root),
      check: (root, probes, references) => probeCheck(slug, model, root, probes, references),
      constants: (root) => {
        const outside = storedOutsideTrials(slug, model, root);
        const measured: Record<string, number> = outside.length ? { [OUTSIDE_CONSTANT]: median(outside) } : {};
        return { ...model.constants?.({ root, notebook: slug }), ...measured };
      },
      ...(model.references ? { references: model.references } : {}),
    },
  };
}
