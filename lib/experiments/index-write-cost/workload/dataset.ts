/** Seed 000's rows (id from 1, counter 0, field1..5 pseudo-random) and update order, a function of (rows, seed). */
import prand from "pure-rand";
import { FIELD_COUNT } from "./operations";

export interface Dataset {
  readonly rows: number;
  readonly seed: number;
  /** fields[f][i]: field(f+1) of row id i+1, an integer in [0, 2^53) (exact as a JS number, a valid int64). */
  readonly fields: readonly Float64Array[];
  /** Row positions (id - 1) in the order updates address them. */
  readonly updateOrder: Uint32Array;
}

const TWO_POW_32 = 4294967296;

export function makeDataset(rows: number, seed: number): Dataset {
  const rng = prand.xoroshiro128plus(seed);
  const fields = Array.from({ length: FIELD_COUNT }, () => new Float64Array(rows));
  for (let i = 0; i < rows; i++) {
    for (let f = 0; f < FIELD_COUNT; f++) {
      // Two 32-bit draws make one 53-bit value (the high draw masked to 21 bits).
      const high = rng.unsafeNext() & 0x1fffff;
      const low = rng.unsafeNext() >>> 0;
      fields[f][i] = high * TWO_POW_32 + low;
    }
  }
  // Its own stream, so the field generator never changes it; Fisher–Yates (pure-rand has no shuffle).
  const orderRng = prand.xoroshiro128plus(seed ^ 0x5eed);
  const updateOrder = new Uint32Array(rows);
  for (let i = 0; i < rows; i++) updateOrder[i] = i;
  for (let i = rows - 1; i > 0; i--) {
    const j = prand.unsafeUniformIntDistribution(0, i, orderRng);
    const t = updateOrder[i];
    updateOrder[i] = updateOrder[j];
    updateOrder[j] = t;
  }
  return { rows, seed, fields, updateOrder };
}

export function* batchRanges(rows: number, batchSize: number): Generator<[number, number]> {
  for (let start = 0; start < rows; start += batchSize) yield [start, Math.min(rows, start + batchSize)];
}
