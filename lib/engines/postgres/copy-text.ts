/**
 * Columns of integers as PostgreSQL COPY text (tab-separated, one row a line), in chunks of `chunkRows` rows.
 *
 * Written digit by digit into a buffer, by hand: `String(x)` of a 53-bit value takes V8's general double-to-shortest
 * path, and it was most of the client's time in a data set's first load. Two halves below 2^31 and a table of digit
 * pairs (the method of Rust's libcore and its itoa crate) make the same bytes several times faster (docs/bench.md,
 * the setup rows); we found no npm package that prints into a buffer. A value that is not a non-negative safe integer
 * is printed by `String`, as before.
 */

/** Values by row; "row number" counts from 1 (a key that is the row's position); a number is every row's value. */
export type IntegerColumn = ArrayLike<number> | "row number" | number;

/** Two ASCII digits of 0..99 at [2i, 2i + 1]. */
const PAIRS = Uint8Array.from({ length: 200 }, (_, j) => 48 + (j % 2 ? (j >> 1) % 10 : Math.floor((j >> 1) / 10)));
const TAB = 9;
const NEWLINE = 10;
const HALF = 1e8;
/** The longest field `String` may print ("-1.2345678901234567e+308" is 24), and its tab. */
const FIELD_BYTES = 25;

/** Digits of x < 10^8 (both halves of a safe integer are). */
const digitCount = (x: number): number =>
  x < 1e4 ? (x < 10 ? 1 : x < 100 ? 2 : x < 1e3 ? 3 : 4) : x < 1e5 ? 5 : x < 1e6 ? 6 : x < 1e7 ? 7 : 8;

/** x < 2^31, at `width` digits (zero-padded); the position after it. */
function writeSmall(buf: Buffer, at: number, x: number, width: number): number {
  let p = at + width;
  while (p - at >= 2) {
    const q = (x / 100) | 0;
    const pair = (x - q * 100) * 2;
    buf[--p] = PAIRS[pair + 1];
    buf[--p] = PAIRS[pair];
    x = q;
  }
  if (p > at) buf[--p] = 48 + x;
  return at + width;
}

function writeInteger(buf: Buffer, at: number, x: number): number {
  if (!(Number.isSafeInteger(x) && x >= 0)) return at + buf.write(String(x), at, "latin1");
  if (x < HALF) return writeSmall(buf, at, x, digitCount(x));
  const high = Math.floor(x / HALF);
  at = writeSmall(buf, at, high, digitCount(high));
  return writeSmall(buf, at, x - high * HALF, 8);
}

export function integerCopyText(columns: readonly IntegerColumn[], rows: number, chunkRows = 10_000): Buffer[] {
  if (!Number.isInteger(rows) || rows < 0) throw new RangeError(`rows must be a whole number ≥ 0, got ${rows}`);
  if (!Number.isInteger(chunkRows) || chunkRows < 1)
    throw new RangeError(`chunkRows must be a whole number ≥ 1, got ${chunkRows}`);
  for (const c of columns)
    if (typeof c === "object" && c.length < rows)
      throw new RangeError(`a column has ${c.length} values for ${rows} rows`);
  const chunks: Buffer[] = [];
  // One scratch buffer at the widest a row may print; each chunk is copied out at its length, so what a caller keeps
  // is the text and no more.
  const buf = Buffer.allocUnsafe(Math.min(rows, chunkRows) * (columns.length * FIELD_BYTES + 1));
  for (let start = 0; start < rows; start += chunkRows) {
    const end = Math.min(rows, start + chunkRows);
    let at = 0;
    for (let i = start; i < end; i++) {
      for (let c = 0; c < columns.length; c++) {
        if (c > 0) buf[at++] = TAB;
        const column = columns[c];
        at = writeInteger(buf, at, column === "row number" ? i + 1 : typeof column === "number" ? column : column[i]);
      }
      buf[at++] = NEWLINE;
    }
    chunks.push(Buffer.from(buf.subarray(0, at)));
  }
  return chunks;
}
