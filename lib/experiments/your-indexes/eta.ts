/** 06's ETA model: runs of a fixed length; the clone and the counters around each grow with the data's scale. */
import fs from "node:fs";
import { finiteOrNaN, type EtaModel, referencesIn, type ReferenceRates } from "../eta";
import { durationText } from "../../stats/format";
import type { YourIndexesParams } from "./params";
import { planRounds } from "./workload/run-trials";
import { indexSets, planVariants, writtenIndexNames, type Design, type VariantPlan } from "./workload/variants";

/**
 * The secondary indexes 06 will drop one at a time: the names `existing` gives, or for "all" the
 * schema file's CREATE INDEX statements (those the server lists only once it has loaded the file;
 * an index behind a PRIMARY KEY or UNIQUE constraint is written inside CREATE TABLE or as ALTER
 * TABLE, so it is not counted, as the lab does not drop it). Unreadable: none (the run's own check
 * says why, before any server starts).
 */
export function indexesToDrop(p: Pick<YourIndexesParams, "existing" | "schema">): string[] {
  // "unused" is known once the source's statistics are read: the schema's indexes bound it.
  if (p.existing !== "all" && p.existing !== "unused") return [...p.existing];
  let text = "";
  try {
    text = fs.readFileSync(p.schema, "utf8");
  } catch {
    return [];
  }
  // A CREATE UNIQUE INDEX is a uniqueness rule the lab does not drop either.
  return writtenIndexNames(text.replace(/^\s*CREATE\s+UNIQUE\s+INDEX\b.*$/gim, ""));
}

const REFERENCES = referencesIn(__dirname);

/**
 * The rates the design choice counts runs at: the first reference file's, unscaled, so the choice is
 * the same on every machine and the ETA printed before a run counts the design it then uses.
 */
function designRates(): ReferenceRates {
  const first = REFERENCES.all()[0];
  if (!first) throw new Error(`06's ETA: no eta-reference*.json in ${REFERENCES.dir}`);
  return first.rates;
}

type DesignParams = Pick<
  YourIndexesParams,
  | "existing"
  | "schema"
  | "candidates"
  | "groups"
  | "oneAtATime"
  | "repeats"
  | "budgetSeconds"
  | "durationSeconds"
  | "scale"
  | "reads"
  | "readSeconds"
>;

/** The timed seconds of one run: the write run and each read script's run after it. */
export const timedSeconds = (p: Pick<YourIndexesParams, "durationSeconds" | "reads" | "readSeconds">): number =>
  p.durationSeconds + p.reads.length * p.readSeconds;

/** The variants a design gives, with the names known before a server has the schema. */
export function plannedVariants(p: DesignParams, design: Design, drops = indexesToDrop(p)): VariantPlan {
  const names = p.candidates.map((c, i) => writtenIndexNames(c)[0] ?? `candidate ${i + 1}`);
  return planVariants(drops, p.candidates, names, indexSets(p.groups, drops, names, design), design);
}

export interface DesignChoice {
  readonly design: Design;
  /** Which design runs and why, with what each costs (at the ETA model's reference rate). */
  readonly why: string;
}

/**
 * The design a run uses, decided before it starts from its own parameters: "always" and "never"
 * as asked; "auto" judges one at a time when that design's planned rounds fit `budgetSeconds`
 * (each run counted at the ETA model's reference rate: its timed seconds plus the clone and
 * counters around it), else the sets first. The same reckoning on every machine, so the ETA
 * printed before the run counts the design the run then uses.
 */
export function chooseDesign(p: DesignParams, drops = indexesToDrop(p)): DesignChoice {
  const rates = designRates();
  const perRun = timedSeconds(p) + rates.overheadSeconds + rates.untimedPerSizeSeconds * p.scale;
  const cost = (design: Design) => {
    const ids = plannedVariants(p, design, drops).variants.map((v) => v.id);
    const runs = planRounds(ids, 1).length;
    return { variants: ids.length - 1, runs, seconds: runs * p.repeats * perRun };
  };
  const each = cost("each");
  const sets = cost("sets");
  const say = (c: ReturnType<typeof cost>) =>
    `${c.variants} variants, ${c.runs} runs a round × ${p.repeats} rounds ≈ ${durationText(c.seconds)}`;
  if (p.oneAtATime === "always") return { design: "each", why: `one at a time, as oneAtATime asks (${say(each)})` };
  if (p.oneAtATime === "never") return { design: "sets", why: `the sets only, as oneAtATime asks (${say(sets)})` };
  if (each.seconds <= p.budgetSeconds || sets.variants >= each.variants)
    return {
      design: "each",
      why: `one at a time: ${say(each)} at the reference rate, within the budget of ${p.budgetSeconds} s`,
    };
  return {
    design: "sets",
    why:
      `the sets first: one at a time would be ${say(each)} at the reference rate, past the budget of ` +
      `${p.budgetSeconds} s; the sets are ${say(sets)}. A set whose cost lies beyond your margin is worth ` +
      `judging member by member (oneAtATime: "always", or a group of the ones you ask about)`,
  };
}

export const estimate: EtaModel<YourIndexesParams> = {
  units(p, maximal) {
    // The design the run will use; the candidates' names are known once built: keys as the run makes them.
    const ids = plannedVariants(p, chooseDesign(p).design).variants.map((v) => v.id);
    return planRounds(ids, maximal ? p.maxRepeats : p.repeats).map((t) => ({
      key: t.key,
      size: p.scale,
      fixedSeconds: timedSeconds(p),
    }));
  },
  size: (_c, p) => finiteOrNaN(p.scale),
  // Without stored runs: the rates fitted on reference machines (eta-reference*.json here).
  references: REFERENCES,
};
