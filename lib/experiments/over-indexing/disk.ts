/**
 * 03's disk at the peak, and how many indexes the template gets: the largest level that fits
 * (docs/over-indexing.md says why and has the measured sizes).
 */
import type { OverIndexingParams } from "./params";
import { bytesText, DISK_HEADROOM, type DiskNeed } from "../../targets/disk-need";
import { CONSTRAINT_INDEXES } from "./workload/schema";

/** The loaded data at dataScale 1 (tables and the constraints' 7 indexes; docs/over-indexing.md). */
export const DATA_BYTES_AT_SCALE_1 = 11.8 * 2 ** 30;
/** A round's bounds: a transaction grows tables and indexes ≤ ~9 kB, writes ~8 kB of WAL; ≤ the seed's ~1,500 TPS. */
const GROWTH_PER_TX = 9 * 1024;
const WAL_PER_TX = 8 * 1024;
const TPS_BOUND = 1500;
const BASE_BYTES = 200 * 2 ** 20;

/** A level's extra indexes as a share of the loaded data's bytes (measured: docs/over-indexing.md). */
export const LEVEL_INDEX_SHARE: Readonly<Record<number, number>> = { 7: 0, 14: 0.143, 21: 0.282, 28: 0.492, 39: 0.645 };

const share = (level: number): number => LEVEL_INDEX_SHARE[level] ?? LEVEL_INDEX_SHARE[39];

export const levelBytes = (dataBytes: number, level: number): number => dataBytes * (1 + share(level));

/** Kept for recycling up to max_wal_size. */
export const loadWalBytes = (p: OverIndexingParams, dataBytes: number): number =>
  Math.min(p.maxWalSizeGB * 2 ** 30, 2.3 * dataBytes);

/** `walNow` is already in the free space's "used": only the WAL beyond it is to come. */
export function roundReserve(
  p: OverIndexingParams,
  dataBytes: number,
  walNow = 0,
): { bytes: number; wal: number; what: string } {
  const top = Math.max(...p.indexLevels);
  const clone = levelBytes(dataBytes, top);
  const growth = p.durationSeconds * TPS_BOUND * GROWTH_PER_TX;
  const rounds = p.maxRepeats * p.indexLevels.length;
  const roundWal = p.durationSeconds * TPS_BOUND * WAL_PER_TX;
  // min_wal_size as server-settings sets it: a quarter of max_wal_size, at least 1 GB.
  const minWal = Math.max(1, Math.floor(p.maxWalSizeGB / 4)) * 2 ** 30;
  const buildWal = dataBytes * share(top);
  const wal = Math.max(
    Math.min(rounds * roundWal, Math.max(minWal, 2 * roundWal)),
    buildWal,
    loadWalBytes(p, dataBytes),
  );
  const walToCome = Math.max(0, wal - walNow);
  return {
    bytes: clone + growth + walToCome + BASE_BYTES,
    wal,
    what:
      `the round's clone at ${top} indexes ${bytesText(clone)} + a round's growth ${bytesText(growth)} + ` +
      (walNow > 0
        ? `WAL ${bytesText(wal)} (${bytesText(walToCome)} past the ${bytesText(walNow)} on disk)`
        : `WAL ${bytesText(wal)}`) +
      ` + ${bytesText(BASE_BYTES)} of server`,
  };
}

/**
 * Whether what the template's indexes leave of the budget holds a second round (its clone at the top
 * level and its growth): then the next round's clone is made while a round reads its counters.
 */
export function roomForSecondClone(p: OverIndexingParams, plan: TemplatePlan, dataBytes: number): boolean {
  const round = levelBytes(dataBytes, Math.max(...p.indexLevels)) + p.durationSeconds * TPS_BOUND * GROWTH_PER_TX;
  return plan.budgetBytes !== undefined && plan.budgetBytes - plan.indexBytes >= round;
}

export function diskNeed(p: OverIndexingParams): DiskNeed {
  const data = p.dataScale * DATA_BYTES_AT_SCALE_1;
  const reserve = roundReserve(p, data);
  return {
    bytes: data + reserve.bytes,
    what: `loaded data ${bytesText(data)} + ${reserve.what}; the template's indexes (up to ${bytesText(levelBytes(data, 39) - data)}) only where they fit`,
  };
}

export const levelsAbove = (p: OverIndexingParams, level: number): number[] =>
  [...new Set(p.indexLevels)].filter((l) => l > level).sort((a, b) => a - b);

export interface TemplatePlan {
  /** Rounds at or below it drop what their level lacks; rounds above it build the rest. */
  readonly level: number;
  readonly rebuilt: readonly number[];
  /** Bytes the template's extra indexes take; the room they had (absent: the free space is unknown). */
  readonly indexBytes: number;
  readonly budgetBytes?: number;
  readonly walBytes: number;
  readonly text: string;
}

/** The largest level whose indexes fit in DISK_HEADROOM with what the rounds add, as the pre-flight counts. */
export function planTemplates(
  p: OverIndexingParams,
  dataBytes: number,
  free: number | undefined,
  walNow = 0,
): TemplatePlan {
  const levels = [...new Set(p.indexLevels)].filter((l) => l !== CONSTRAINT_INDEXES).sort((a, b) => b - a);
  const indexBytes = (level: number) => levelBytes(dataBytes, level) - dataBytes;
  const what = (level: number) =>
    `the template gets level ${level}'s ${level - CONSTRAINT_INDEXES} extra indexes once (${bytesText(indexBytes(level))}), and each round clones it and drops the indexes its level lacks`;
  if (free === undefined) {
    const level = levels[0] ?? CONSTRAINT_INDEXES;
    return {
      level,
      rebuilt: [],
      indexBytes: indexBytes(level),
      walBytes: walNow,
      text: `${levels.length ? what(level) : "no level has indexes to build"}: the server's free space is out of the lab's reach`,
    };
  }
  const reserve = roundReserve(p, dataBytes, walNow);
  const budget = Math.max(0, free * DISK_HEADROOM - reserve.bytes);
  const level = levels.find((l) => indexBytes(l) <= budget) ?? CONSTRAINT_INDEXES;
  const rebuilt = levelsAbove(p, level);
  const room = `${bytesText(free)} free after the load, less ${bytesText(reserve.bytes)} for the rounds (${reserve.what})`;
  const many = (n: number, one: string, more: string) => (n === 1 ? one : more);
  const text =
    level === CONSTRAINT_INDEXES
      ? levels.length
        ? `no room for indexes in the template: level${many(rebuilt.length, "", "s")} ${rebuilt.join(", ")} clone the loaded data and build ${many(rebuilt.length, "its", "their")} indexes every round, in ${room}`
        : "no level has indexes to build"
      : `${what(level)}` +
        (rebuilt.length
          ? `; level${many(rebuilt.length, "", "s")} ${rebuilt.join(", ")} build${many(rebuilt.length, "s", "")} the rest of ${many(rebuilt.length, "its", "their")} indexes every round, no room for more in ${room}`
          : `: ${room}`);
  return { level, rebuilt, indexBytes: indexBytes(level), budgetBytes: budget, walBytes: walNow, text };
}
