/** 03's ETA model; a level with no room in the template (disk.ts) builds the rest of its indexes every round. */
import path from "node:path";
import {
  finiteOrNaN,
  grownSeconds,
  isObject as isRecord,
  readJson,
  referenceConstant,
  referencesIn,
  storedRuns,
  storedTrials,
  type EtaModel,
  type StoredRuns,
} from "../eta";
import { durationText } from "../../stats/format";
import { embeddedBaseDir } from "../../targets/embedded/data-dir";
import { partsOf } from "../../results/metadata";
import { freeBytes } from "../../targets/disk-need";
import type { OverIndexingParams } from "./params";
import { DATA_BYTES_AT_SCALE_1, levelsAbove, loadWalBytes, planTemplates, type TemplatePlan } from "./disk";
import { planRounds } from "./workload/run-trials";
import { CONSTRAINT_INDEXES, extraIndexesFor, indexesBetween } from "./workload/schema";

type Point = { size: number; seconds: number };

/** Every part of a resumed run loads its data again; a run stopped before its metadata says nothing of its load. */
function* storedScales(stored: StoredRuns) {
  for (const { dir, params } of storedRuns(stored)) {
    const size = finiteOrNaN(params.dataScale);
    if (size > 0) yield { size, dir, parts: partsOf(readJson(path.join(dir, "metadata.json"))) };
  }
}

export const storedLoads = (stored: StoredRuns): Point[] =>
  [...storedScales(stored)].flatMap(({ size, parts }) =>
    parts.flatMap((part) => {
      const load = isRecord(part.template) ? part.template.loadSeconds : undefined;
      const seconds = isRecord(load) ? Object.values(load).reduce<number>((t, v) => t + finiteOrNaN(v), 0) : 0;
      return seconds > 0 ? [{ size, seconds }] : [];
    }),
  );

/** Rounds stored before the template had indexes built all of their level's. */
function builtBy(t: Record<string, unknown>): { indexes: number; seconds: number } {
  const none = { indexes: 0, seconds: 0 };
  if (!isRecord(t.prepared) || !isRecord(t.condition)) return none;
  const seconds = finiteOrNaN(t.prepared.indexSeconds);
  const level = finiteOrNaN(t.condition.level);
  if (!(seconds > 0)) return none;
  try {
    if (t.prepared.templateLevel !== undefined) {
      const from = finiteOrNaN(t.prepared.templateLevel);
      return { indexes: level > from ? indexesBetween(from, level).length : 0, seconds };
    }
    const built = t.prepared.builtLevelTemplate === true || t.prepared.fromLevelTemplate === false;
    return built ? { indexes: extraIndexesFor(level).length, seconds } : none;
  } catch {
    return none; // a level this schema does not have
  }
}

export const storedBuildRates = (stored: StoredRuns): Point[] =>
  [...storedScales(stored)].flatMap(({ size, dir, parts }) =>
    [
      ...storedTrials(dir).map(builtBy),
      ...parts.flatMap((part) => {
        const plan = part.templates;
        if (!isRecord(plan)) return [];
        try {
          return [
            { indexes: extraIndexesFor(finiteOrNaN(plan.level)).length, seconds: finiteOrNaN(plan.indexSeconds) },
          ];
        } catch {
          return []; // a level this schema does not have
        }
      }),
    ].flatMap(({ indexes, seconds }) => (indexes > 0 && seconds > 0 ? [{ size, seconds: seconds / indexes }] : [])),
  );

/** The made template's level, or before it is made the level the free space now is expected to hold. */
function templatePlan(p: OverIndexingParams, madeLevel: number | undefined): Pick<TemplatePlan, "level" | "rebuilt"> {
  if (madeLevel !== undefined) return { level: madeLevel, rebuilt: levelsAbove(p, madeLevel) };
  const data = p.dataScale * DATA_BYTES_AT_SCALE_1;
  const wal = loadWalBytes(p, data);
  let free: number | undefined;
  try {
    free = freeBytes(embeddedBaseDir()) - data - wal;
  } catch {
    free = undefined; // no data directory to read: as if the template had room for every index
  }
  return planTemplates(p, data, free, wal);
}

const REFERENCES = referencesIn(__dirname);
export const LOAD_CONSTANT = "loadSecondsAtScale1";
export const BUILD_CONSTANT = "buildSecondsPerIndexAtScale1";

function orReference(points: Point[], constant: string): Point[] {
  if (points.length) return points;
  const reference = referenceConstant(REFERENCES.all(), constant);
  return reference ? [{ size: 1, seconds: reference.seconds }] : [];
}

function buildSeconds(p: OverIndexingParams, stored: StoredRuns): (from: number, to: number) => number {
  const perIndex = grownSeconds(orReference(storedBuildRates(stored), BUILD_CONSTANT), p.dataScale)?.seconds ?? 0;
  return (from, to) => (to > from ? perIndex * indexesBetween(from, to).length : 0);
}

/** Once the template is made, free space is the run's doing: a plan read again would build every level each round. */
export function estimateFor(madeLevel?: number, loaded = false): EtaModel<OverIndexingParams> {
  return {
    units(p, maximal, stored) {
      const plan = templatePlan(p, madeLevel);
      const build = buildSeconds(p, stored);
      return planRounds(p.indexLevels, maximal ? p.maxRepeats : p.repeats).map((t) => ({
        key: t.key,
        size: p.dataScale,
        fixedSeconds: p.durationSeconds + build(plan.level, t.condition.level),
      }));
    },
    size: (_c, p) => finiteOrNaN(p.dataScale),
    // Left out of its untimed part.
    apart: (t) => builtBy(t).seconds,
    setup(p, stored) {
      const plan = templatePlan(p, madeLevel);
      const build = buildSeconds(p, stored);
      const templateSeconds = build(CONSTRAINT_INDEXES, plan.level);
      if (loaded) {
        return templateSeconds > 0
          ? {
              seconds: templateSeconds,
              text: `level ${plan.level}'s indexes into the template first, about ${durationText(templateSeconds, "estimate")}`,
            }
          : undefined;
      }
      const loads = storedLoads(stored);
      const load = grownSeconds(orReference(loads, LOAD_CONSTANT), p.dataScale);
      if (!load) return undefined;
      const from = loads.length
        ? `from ${loads.length} stored load(s), ∝ scale^${load.exponent.toFixed(2)} past ${load.from}`
        : `${referenceConstant(REFERENCES.all(), LOAD_CONSTANT)?.text ?? "the reference"}, at scale 1, ∝ scale`;
      const templateText =
        plan.level > CONSTRAINT_INDEXES && templateSeconds > 0
          ? `, then level ${plan.level}'s indexes into the template, about ${durationText(templateSeconds, "estimate")}`
          : "";
      const rebuilt = plan.rebuilt.length
        ? `; level${plan.rebuilt.length === 1 ? "" : "s"} ${plan.rebuilt.join(", ")} build indexes every round (no room on disk for them in the template), ${durationText(
            plan.rebuilt.reduce((t, l) => t + build(plan.level, l), 0),
            "estimate",
          )} a repeat`
        : "";
      return {
        seconds: load.seconds + templateSeconds,
        text: `loading the data first, about ${durationText(load.seconds, "estimate")} (${from})${templateText}${rebuilt}`,
      };
    },
    references: REFERENCES,
  };
}

export const estimate: EtaModel<OverIndexingParams> = estimateFor();
