/** Per-bucket series helpers. */
import type { SeriesPoint } from "./types";

/**
 * A series as step coordinates covering each whole bucket: bucket starts plus the closing edge of
 * the last bucket (a step line drawn "hv" needs that point, or the last second has no width).
 */
export function stepCoordinates(
  series: readonly SeriesPoint[],
  y: (p: SeriesPoint) => number | null,
): { x: number[]; y: (number | null)[] } {
  if (!series.length) return { x: [], y: [] };
  const last = series[series.length - 1];
  const width = series.length > 1 ? series[1].second - series[0].second : 1;
  return { x: [...series.map((p) => p.second), last.second + width], y: [...series.map(y), y(last)] };
}
