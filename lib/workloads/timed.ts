/** f's value and the seconds it took. */
export const timed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const t0 = process.hrtime.bigint();
  const value = await f();
  return [value, Number(process.hrtime.bigint() - t0) / 1e9];
};
