/** In stats because every layer above writes durations and stats imports nothing. */

/** `"estimate"`: whole units ("12 min"); `"measured"`: a time spent ("4 min 23 s"). */
export function durationText(seconds: number, style: "estimate" | "measured" = "measured"): string {
  if (style === "estimate") {
    if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return `${minutes} min`;
    return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
  }
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min ${whole % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** `na` for a figure the run does not have (undefined, NaN, ±∞). */
export function fixed(x: number | undefined, digits: number, na = "n/a"): string {
  return x === undefined || !Number.isFinite(x) ? na : x.toFixed(digits);
}

/** `fixed` at 0, 1, 2 or 3 digits, null read as undefined. */
export const [f0, f1, f2, f3] = [0, 1, 2, 3].map((d) => (x: number | undefined | null) => fixed(x ?? undefined, d));

/** Milliseconds at `digits`: "0.512 ms". */
export const ms = (x: number | undefined | null, digits = 3): string => `${fixed(x ?? undefined, digits)} ms`;

/** Two decimals, no unit: "0.42". */
export const ratio = (x: number): string => x.toFixed(2);

/** A rounded zero has no sign. */
export function minusFixed(x: number, digits: number): string {
  const t = Math.abs(x).toFixed(digits);
  return x < 0 && Number(t) !== 0 ? `−${t}` : t;
}

export function percent(x: number | undefined, digits = 0, na = "n/a"): string {
  return x === undefined || !Number.isFinite(x) ? na : `${(x * 100).toFixed(digits)} %`;
}

/** Bytes at `digits` in kB or KiB (1,024 bytes) or MB (1,024²). */
export function bytesIn(x: number | undefined, unit: "kB" | "KiB" | "MB", digits: number, na = "n/a"): string {
  return x === undefined || !Number.isFinite(x)
    ? na
    : `${(x / (unit === "MB" ? 2 ** 20 : 1024)).toFixed(digits)} ${unit}`;
}

export const kilobytes = (x: number | undefined, na = "n/a"): string => bytesIn(x, "kB", 1, na);

export const times = (x: number, digits = 2): string => `${x.toFixed(digits)}×`;

export function count(x: number | undefined, na = "n/a"): string {
  return x === undefined || !Number.isFinite(x) ? na : Math.round(x).toLocaleString("en-US");
}

/** A size as a chart names it: 5000, 10k, 1M. */
export const shortCount = (n: number): string =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n);
