/**
 * 03's ETA model: rounds of a fixed length, their setup growing with the data's scale; before them
 * the data's load, once a run (a resumed one loads it again); and, where the disk has no room for a
 * level's template (disk.ts), that level's index builds in every round.
 *
 * The load is outside the rounds, and the builds are in few of them (a kept template's first round),
 * so both are counted on their own (a stored round's builds are left out of its untimed part), and
 * they grow with the data: the load took 16 s at dataScale 0.01 here, so ~27 min at the seed's
 * scale, and building level 39's 32 indexes 3.7 s at 0.01 (0.65 s at 0.002). Both are read from this
 * machine's stored runs (the run's metadata and its rounds' `prepared` seconds) and grown past the
 * largest stored scale as the trials' timed parts are (growthExponent).
 */
import fs from "node:fs";
import path from "node:path";
import { finiteOrNaN, grownSeconds, storedRuns, storedTrials, type EtaModel, type StoredRuns } from "../eta";
import { durationText } from "../../stats/format";
import { embeddedBaseDir } from "../../targets/embedded/data-dir";
import { partsOf } from "../../results/metadata";
import { freeBytes } from "../../targets/disk-need";
import type { OverIndexingParams } from "./params";
import { DATA_BYTES_AT_SCALE_1, loadWalBytes, planTemplates, type TemplatePlan } from "./disk";
import { planRounds } from "./workload/run-trials";
import { extraIndexesFor } from "./workload/schema";

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, "utf8"));
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/**
 * Each stored data load: its run's dataScale and the seconds its steps took (metadata.template.loadSeconds,
 * in the run's current part or an earlier one).
 */
export function storedLoads(stored: StoredRuns): { size: number; seconds: number }[] {
  const out: { size: number; seconds: number }[] = [];
  for (const { dir, params } of storedRuns(stored)) {
    const size = finiteOrNaN(params.dataScale);
    if (!(size > 0)) continue;
    try {
      // Every part of a resumed run loads its data again; each finished load is a sample.
      for (const part of partsOf(readJson(path.join(dir, "metadata.json")))) {
        const load = isRecord(part.template) ? part.template.loadSeconds : undefined;
        if (!isRecord(load)) continue;
        const seconds = Object.values(load).reduce<number>((t, v) => t + finiteOrNaN(v), 0);
        if (seconds > 0) out.push({ size, seconds });
      }
    } catch {
      continue; // a run stopped before its metadata says nothing about its load
    }
  }
  return out;
}

/** Seconds a stored round spent building its level's indexes (its template's, or its own); 0 if it built none. */
function buildSecondsOf(t: Record<string, unknown>): number {
  if (!isRecord(t.prepared)) return 0;
  const built = t.prepared.builtLevelTemplate === true || t.prepared.fromLevelTemplate === false;
  const seconds = finiteOrNaN(t.prepared.indexSeconds);
  return built && seconds > 0 ? seconds : 0;
}

/**
 * Seconds per extra index of each stored round that built its level's indexes (a template's first
 * round, or a round of a level without one), by dataScale.
 */
export function storedBuildRates(stored: StoredRuns): { size: number; seconds: number }[] {
  const out: { size: number; seconds: number }[] = [];
  for (const { dir, params } of storedRuns(stored)) {
    const size = finiteOrNaN(params.dataScale);
    if (!(size > 0)) continue;
    for (const t of storedTrials(dir)) {
      const seconds = buildSecondsOf(t);
      const level = isRecord(t.condition) ? finiteOrNaN(t.condition.level) : NaN;
      let extras = 0;
      try {
        extras = extraIndexesFor(level).length;
      } catch {
        continue; // a level this schema does not have
      }
      if (extras > 0 && seconds > 0) out.push({ size, seconds: seconds / extras });
    }
  }
  return out;
}

/**
 * The template plan the run will make, as seen now: the embedded server's data directory's free
 * bytes (the default target's), less the data it will load and the WAL the load leaves.
 */
function expectedPlan(p: OverIndexingParams): TemplatePlan {
  const data = p.dataScale * DATA_BYTES_AT_SCALE_1;
  const wal = loadWalBytes(p, data);
  let free: number | undefined;
  try {
    free = freeBytes(embeddedBaseDir()) - data - wal;
  } catch {
    free = undefined; // no data directory to read: every level as if it kept a template
  }
  return planTemplates(p, data, free, wal);
}

/** Seconds of one round's index builds at each level, from the stored builds (0 without any). */
function buildSeconds(p: OverIndexingParams, stored: StoredRuns): (level: number) => number {
  const perIndex = grownSeconds(storedBuildRates(stored), p.dataScale)?.seconds ?? 0;
  return (level) => perIndex * extraIndexesFor(level).length;
}

export const estimate: EtaModel<OverIndexingParams> = {
  units(p, maximal, stored) {
    const plan = expectedPlan(p);
    const rebuilt = new Set(plan.rebuilt);
    const build = buildSeconds(p, stored);
    // A level's builds: in every round of a level without a template, in the first of one with.
    return planRounds(p.indexLevels, maximal ? p.maxRepeats : p.repeats).map((t) => ({
      key: t.key,
      size: p.dataScale,
      fixedSeconds:
        p.durationSeconds + (rebuilt.has(t.condition.level) || t.repeat === 1 ? build(t.condition.level) : 0),
    }));
  },
  size: (_c, p) => finiteOrNaN(p.dataScale),
  apart: buildSecondsOf,
  setup(p, stored) {
    const loads = storedLoads(stored);
    const load = grownSeconds(loads, p.dataScale);
    if (!load) return undefined;
    const plan = expectedPlan(p);
    const build = buildSeconds(p, stored);
    const rebuilt = plan.rebuilt.length
      ? `; levels ${[...plan.rebuilt].sort((a, b) => a - b).join(", ")} build their indexes every round (no room on disk for their templates), ` +
        `${durationText(
          plan.rebuilt.reduce((t, l) => t + build(l), 0),
          "estimate",
        )} a repeat of them`
      : "";
    return {
      seconds: load.seconds,
      text:
        `loading the data first, about ${durationText(load.seconds, "estimate")} (from ${loads.length} stored load(s), ` +
        `∝ scale^${load.exponent.toFixed(2)} past ${load.from})${rebuilt}`,
    };
  },
  // The untimed part seen at one size only on the reference machine.
  reference: { timedPerSizeSeconds: 0, overheadSeconds: 2.5, untimedPerSizeSeconds: 0, constantSetup: true },
};
