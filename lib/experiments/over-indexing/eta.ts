/**
 * 03's ETA model: rounds of a fixed length, their setup growing with the data's scale; before them
 * the load (once a run, a resumed one too) and the template's indexes, each counted on its own from
 * this machine's stored runs and grown past the largest stored scale (growthExponent); a level
 * with no room in the template (disk.ts) builds the rest of its indexes in every round.
 */
import fs from "node:fs";
import path from "node:path";
import {
  finiteOrNaN,
  grownSeconds,
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

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, "utf8"));
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

type Point = { size: number; seconds: number };

/** Each stored run's dataScale, folder and metadata parts (every part of a resumed run loads its data again). */
function* storedScales(stored: StoredRuns) {
  for (const { dir, params } of storedRuns(stored)) {
    const size = finiteOrNaN(params.dataScale);
    if (!(size > 0)) continue;
    let parts: Record<string, unknown>[] = [];
    try {
      parts = partsOf(readJson(path.join(dir, "metadata.json")));
    } catch {
      // a run stopped before its metadata says nothing about its load
    }
    yield { size, dir, parts };
  }
}

/** Each stored data load: its run's dataScale and its steps' seconds (metadata.template.loadSeconds). */
export const storedLoads = (stored: StoredRuns): Point[] =>
  [...storedScales(stored)].flatMap(({ size, parts }) =>
    parts.flatMap((part) => {
      const load = isRecord(part.template) ? part.template.loadSeconds : undefined;
      const seconds = isRecord(load) ? Object.values(load).reduce<number>((t, v) => t + finiteOrNaN(v), 0) : 0;
      return seconds > 0 ? [{ size, seconds }] : [];
    }),
  );

/**
 * The indexes a stored round built and their seconds: those of its level above its template's, or,
 * stored before the template had indexes, all of its level's (in its own database or its level's template).
 */
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

/** Seconds a stored round spent building indexes (0 if it built none): left out of its untimed part. */
const buildSecondsOf = (t: Record<string, unknown>): number => builtBy(t).seconds;

/** Seconds per extra index, by dataScale: of each stored round that built some, and of each template build. */
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

/** The template plan as seen before the run: the embedded data directory's free bytes less the load's data and WAL. */
function expectedPlan(p: OverIndexingParams): TemplatePlan {
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

/** Without stored runs: the reference files' data load and one index build at dataScale 1 (their `constants`). */
const REFERENCES = referencesIn(__dirname);
export const LOAD_CONSTANT = "loadSecondsAtScale1";
export const BUILD_CONSTANT = "buildSecondsPerIndexAtScale1";

/** Stored points, else the nearest reference's at dataScale 1 scaled by this machine's probes. */
function orReference(points: Point[], constant: string): Point[] {
  if (points.length) return points;
  const reference = referenceConstant(REFERENCES.all(), constant);
  return reference ? [{ size: 1, seconds: reference.seconds }] : [];
}

/** Seconds to build the extra indexes between two levels, from the stored builds, else the reference's. */
function buildSeconds(p: OverIndexingParams, stored: StoredRuns): (from: number, to: number) => number {
  const perIndex = grownSeconds(orReference(storedBuildRates(stored), BUILD_CONSTANT), p.dataScale)?.seconds ?? 0;
  return (from, to) => (to > from ? perIndex * indexesBetween(from, to).length : 0);
}

/** The template's level and the levels above it, as the run made them or, before it, as expected. */
function templatePlan(p: OverIndexingParams, madeLevel: number | undefined): Pick<TemplatePlan, "level" | "rebuilt"> {
  if (madeLevel === undefined) return expectedPlan(p);
  return { level: madeLevel, rebuilt: levelsAbove(p, madeLevel) };
}

/**
 * The model, with the template's level once the run has made it (`madeLevel`): from then on the
 * data directory's free space is the run's own doing (its template and the round's clone), and a
 * plan read from it again would have every level build its indexes in every round. `loaded`: the
 * data is in, the template's indexes are building; the setup left is theirs.
 */
export function estimateFor(madeLevel?: number, loaded = false): EtaModel<OverIndexingParams> {
  return {
    units(p, maximal, stored) {
      const plan = templatePlan(p, madeLevel);
      const build = buildSeconds(p, stored);
      // A level above the template's builds the rest of its indexes in every round.
      return planRounds(p.indexLevels, maximal ? p.maxRepeats : p.repeats).map((t) => ({
        key: t.key,
        size: p.dataScale,
        fixedSeconds: p.durationSeconds + build(plan.level, t.condition.level),
      }));
    },
    size: (_c, p) => finiteOrNaN(p.dataScale),
    apart: buildSecondsOf,
    setup(p, stored) {
      const plan = templatePlan(p, madeLevel);
      const build = buildSeconds(p, stored);
      const templateSeconds = build(CONSTRAINT_INDEXES, plan.level);
      // Loaded, the template's indexes building: they are what is left before the rounds.
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
        ? `; level${plan.rebuilt.length === 1 ? "" : "s"} ${plan.rebuilt.join(", ")} build indexes every round (no room on disk for them in the template), ` +
          `${durationText(
            plan.rebuilt.reduce((t, l) => t + build(plan.level, l), 0),
            "estimate",
          )} a repeat`
        : "";
      return {
        seconds: load.seconds + templateSeconds,
        text: `loading the data first, about ${durationText(load.seconds, "estimate")} (${from})${templateText}${rebuilt}`,
      };
    },
    // Without stored runs: the rates fitted on reference machines (eta-reference*.json here).
    references: REFERENCES,
  };
}

export const estimate: EtaModel<OverIndexingParams> = estimateFor();
