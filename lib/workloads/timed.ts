/** f's value and the seconds it took. */
export const timed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const t0 = process.hrtime.bigint();
  const value = await f();
  return [value, Number(process.hrtime.bigint() - t0) / 1e9];
};

export interface TimeUnitsOptions<U> {
  /** Checked before each unit. */
  readonly signal?: AbortSignal;
  /** Untimed, after each unit (e.g. a reading between batches). */
  readonly after?: (unit: U) => Promise<void>;
  /** Each unit's time rounded to the microsecond from its nanoseconds as measured, for a record that sums the
   * rounded times (roundedToMicrosecond rounds after, from milliseconds: the last digit can differ). */
  readonly roundEachToMicrosecond?: boolean;
}

/** Each unit's milliseconds, `run` alone timed: a trial's timed batches, one after the other. */
export async function timeUnits<U>(
  units: Iterable<U>,
  run: (unit: U, index: number) => Promise<unknown>,
  o: TimeUnitsOptions<U> = {},
): Promise<number[]> {
  const unitMs: number[] = [];
  for (const unit of units) {
    o.signal?.throwIfAborted();
    const t0 = process.hrtime.bigint();
    await run(unit, unitMs.length);
    const ns = Number(process.hrtime.bigint() - t0);
    unitMs.push(o.roundEachToMicrosecond ? Math.round(ns / 1e3) / 1e3 : ns / 1e6);
    await o.after?.(unit);
  }
  return unitMs;
}

/** Milliseconds as a record keeps them, to the microsecond. */
export const roundedToMicrosecond = (ms: readonly number[]): number[] => ms.map((m) => Math.round(m * 1000) / 1000);

/** Ids 1 to `rows` in inclusive ranges of `batchRows`, the last one shorter where they do not divide. */
export function* idRanges(rows: number, batchRows: number): Generator<[from: number, to: number]> {
  for (let from = 1; from <= rows; from += batchRows) yield [from, Math.min(rows, from + batchRows - 1)];
}

/** Seconds by part as a trial record carries them, `<part>Seconds`. */
export type SecondsOf<Part extends string> = Partial<Record<`${Part}Seconds`, number>>;

/** A trial's seconds outside its timed part, summed by part (the run's time account reads `<part>Seconds`). */
export class SetupClock<Part extends string> {
  private readonly seconds = new Map<Part, number>();

  add(part: Part, seconds: number): void {
    this.seconds.set(part, (this.seconds.get(part) ?? 0) + seconds);
  }

  async time<T>(part: Part, f: () => Promise<T>): Promise<T> {
    const [value, seconds] = await timed(f);
    this.add(part, seconds);
    return value;
  }

  record(): SecondsOf<Part> {
    return Object.fromEntries([...this.seconds].map(([part, s]) => [`${part}Seconds`, s])) as SecondsOf<Part>;
  }
}
