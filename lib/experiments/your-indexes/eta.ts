/** 06's ETA model and design choice: fixed-length runs; the clone and counters around each grow with the scale. */
import fs from "node:fs";
import { finiteOrNaN, type EtaModel, referencesIn } from "../eta";
import { durationText } from "../../stats/format";
import type { YourIndexesParams } from "./params";
import { planRounds } from "./workload/run-trials";
import { candidateNames, planDesign, writtenIndexNames, type Design } from "./workload/variants";

/** `existing`'s names, or for "all" and "unused" the schema file's CREATE INDEX statements but unique ones. */
export function indexesToDrop(p: Pick<YourIndexesParams, "existing" | "schema">): string[] {
  if (p.existing !== "all" && p.existing !== "unused") return [...p.existing];
  try {
    return writtenIndexNames(fs.readFileSync(p.schema, "utf8").replace(/^\s*CREATE\s+UNIQUE\s+INDEX\b.*$/gim, ""));
  } catch {
    return [];
  }
}

const REFERENCES = referencesIn(__dirname);

const timedSeconds = (p: YourIndexesParams): number => p.durationSeconds + p.reads.length * p.readSeconds;

const plannedIds = (p: YourIndexesParams, design: Design, drops = indexesToDrop(p)): string[] =>
  planDesign(p, drops, candidateNames(p.candidates), design).variants.map((v) => v.id);

export type DesignChoice = { readonly design: Design; readonly why: string };

/** "auto": one at a time if it fits `budgetSeconds` at the first reference's rates (the same on every machine). */
export function chooseDesign(p: YourIndexesParams, drops = indexesToDrop(p)): DesignChoice {
  const rates = REFERENCES.all()[0]?.rates;
  if (!rates) throw new Error(`06's ETA: no eta-reference*.json in ${REFERENCES.dir}`);
  const perRun = timedSeconds(p) + rates.overheadSeconds + rates.untimedPerSizeSeconds * p.scale;
  const cost = (design: Design) => {
    const ids = plannedIds(p, design, drops);
    const runs = planRounds(ids, 1).length;
    return { variants: ids.length - 1, runs, seconds: runs * p.repeats * perRun };
  };
  const [each, sets] = [cost("each"), cost("sets")];
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
    why: `the sets first: one at a time would be ${say(each)} at the reference rate, past the budget of ${p.budgetSeconds} s; the sets are ${say(sets)}. A set whose cost lies beyond your margin is worth judging member by member (oneAtATime: "always", or a group of the ones you ask about)`,
  };
}

export const estimate: EtaModel<YourIndexesParams> = {
  units: (p, maximal) =>
    planRounds(plannedIds(p, chooseDesign(p).design), maximal ? p.maxRepeats : p.repeats).map((t) => ({
      key: t.key,
      size: p.scale,
      fixedSeconds: timedSeconds(p),
    })),
  size: (_c, p) => finiteOrNaN(p.scale),
  references: REFERENCES,
};
