/**
 * Durations as the lab writes them, in one place (ETA lines, progress, the run's activity line,
 * reproduce's summary). In stats because every layer above writes them and stats imports nothing.
 */

/**
 * `"estimate"`: whole units, as said of a time not yet spent ("40 s", "12 min", "7 h 40 min").
 * `"measured"`: a time spent ("2.5 s", "42 s", "4 min 23 s", "1 h 7 min").
 */
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

/** A number with `digits` decimals; `na` for a figure the run does not have (undefined, NaN, ±∞). */
export function fixed(x: number | undefined, digits: number, na = "n/a"): string {
  return x === undefined || !Number.isFinite(x) ? na : x.toFixed(digits);
}

/** A figure with `digits` decimals, a typographic minus and no "−0.0" (a rounded zero has no sign). */
export function minusFixed(x: number, digits: number): string {
  const t = Math.abs(x).toFixed(digits);
  return x < 0 && Number(t) !== 0 ? `−${t}` : t;
}

/** A share as a percentage ("12 %", "12.5 %"); `na` as for `fixed`. */
export function percent(x: number | undefined, digits = 0, na = "n/a"): string {
  return x === undefined || !Number.isFinite(x) ? na : `${(x * 100).toFixed(digits)} %`;
}

/** Bytes in kB (1,024) with one decimal; `na` as for `fixed`. */
export function kilobytes(x: number | undefined, na = "n/a"): string {
  return x === undefined || !Number.isFinite(x) ? na : `${(x / 1024).toFixed(1)} kB`;
}

/** A ratio as a multiple ("2.54×"). */
export const times = (x: number, digits = 2): string => `${x.toFixed(digits)}×`;

/** A count rounded to a whole number with thousands separators ("100,000,000"); `na` as for `fixed`. */
export function count(x: number | undefined, na = "n/a"): string {
  return x === undefined || !Number.isFinite(x) ? na : Math.round(x).toLocaleString("en-US");
}
