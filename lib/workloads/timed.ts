/** f's value and the seconds it took. */
export const timed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const t0 = process.hrtime.bigint();
  const value = await f();
  return [value, Number(process.hrtime.bigint() - t0) / 1e9];
};

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
