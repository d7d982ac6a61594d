/** summary.csv's columns of a median and its interval, as 01 and 07 write them. */
import type { Interval } from "../stats/intervals";

/** `name`, `name_low`, `name_high`, then the interval's coverage under `coverage`. */
export const intervalColumns = (
  name: string,
  value: number | undefined,
  interval: Interval | undefined,
  coverage = `${name}_coverage`,
): Record<string, number | null> => ({
  [name]: value ?? null,
  [`${name}_low`]: interval?.low ?? null,
  [`${name}_high`]: interval?.high ?? null,
  [coverage]: interval?.coverage ?? null,
});
