/**
 * Williams designs: every treatment in every position equally often and after every other equally
 * often. First row 0, 1, n−1, 2, n−2, …, row r that plus r (mod n); odd n adds the mirror images.
 */

/** n rows for even n, 2n for odd n. */
export function williamsDesign(n: number): number[][] {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`williamsDesign needs a positive integer, got ${n}`);
  const first = Array.from({ length: n }, (_, i) => (i === 0 ? 0 : i % 2 === 1 ? (i + 1) / 2 : n - i / 2));
  const rows = Array.from({ length: n }, (_, r) => first.map((t) => (t + r) % n));
  return n % 2 === 0 ? rows : [...rows, ...rows.map((row) => [...row].reverse())];
}
