/**
 * Williams designs: orders of n treatments in which every treatment takes every position equally
 * often and immediately follows every other treatment equally often (first-order carry-over
 * balanced). The standard construction: the first row 0, 1, n−1, 2, n−2, …, row r that row plus r
 * (mod n); for even n those n rows are balanced, for odd n they are together with their n mirror
 * images (2n rows). Hand-written: no package among the lab's dependencies builds one, and the
 * construction is these few lines (its balance is checked in test/unit/williams.test.ts).
 */

/** The rows of a Williams design for n treatments (indices 0…n−1): n rows for even n, 2n for odd n. */
export function williamsDesign(n: number): number[][] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`williamsDesign needs a positive integer, got ${n}`);
  const first = Array.from({ length: n }, (_, i) => (i === 0 ? 0 : i % 2 === 1 ? (i + 1) / 2 : n - i / 2));
  const rows = Array.from({ length: n }, (_, r) => first.map((t) => (t + r) % n));
  return n % 2 === 0 ? rows : [...rows, ...rows.map((row) => [...row].reverse())];
}
