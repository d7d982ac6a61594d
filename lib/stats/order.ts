/**
 * Condition order per repeat: one fixed order would land slow drift on the same conditions every
 * time. Each repeat's order comes from a seeded PRNG, so a run and its resume replay the same plan.
 */
import prand from "pure-rand";

/** Fisher–Yates with pure-rand; the same seed gives the same order. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const rng = prand.xoroshiro128plus(seed >>> 0);
  for (let i = out.length - 1; i > 0; i--) {
    const j = prand.unsafeUniformIntDistribution(0, i, rng);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Distinct per repeat and block, reproducible from the run's seed. */
export function orderSeed(runSeed: number, repeat: number, block = 0): number {
  return (Math.imul(runSeed ^ 0x9e3779b9, 31) + Math.imul(repeat, 0x85ebca6b) + Math.imul(block, 0xc2b2ae35)) >>> 0;
}

/** Rotation, for designs with few conditions: repeat r starts r places further on. */
export function rotated<T>(items: readonly T[], repeat: number): T[] {
  const k = ((repeat % items.length) + items.length) % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
