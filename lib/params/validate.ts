/**
 * Parameter checks that run before anything starts, with messages a reader can act on.
 */

export class ParameterError extends Error {
  override readonly name = "ParameterError";
}

export function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
    throw new ParameterError(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function nonNegativeNumber(name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new ParameterError(`${name} must be a number ≥ 0, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function positiveIntegerList(name: string, value: unknown): number[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ParameterError(`${name} must be a non-empty list of positive integers, got ${JSON.stringify(value)}`);
  }
  return value.map((v, i) => positiveInteger(`${name}[${i}]`, v));
}

export function integerListInRange(name: string, value: unknown, min: number, max: number): number[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ParameterError(`${name} must be a non-empty list of integers, got ${JSON.stringify(value)}`);
  }
  return value.map((v, i) => {
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
      throw new ParameterError(`${name}[${i}] must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
    }
    return v;
  });
}

export function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new ParameterError(`${name} must be one of ${allowed.join(", ")}; got ${JSON.stringify(value)}`);
  }
  return value as T;
}

export function listOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ParameterError(`${name} must be a non-empty list drawn from ${allowed.join(", ")}`);
  }
  return value.map((v, i) => oneOf(`${name}[${i}]`, v, allowed));
}

/** Rejects keys that the notebook does not know (a typo must not silently run the default). */
export function rejectUnknownKeys(notebook: string, given: object, known: readonly string[]): void {
  const unknown = (key: string) =>
    new ParameterError(`${notebook}: unknown parameter "${key}". Known parameters: ${known.join(", ")}`);
  // `{ __proto__: {...} }` (or `--set __proto__=...` into a plain object) hides its keys from
  // Object.keys yet every lookup reads them: a parameter set that way would apply unchecked.
  const proto: unknown = Object.getPrototypeOf(given);
  if (proto !== Object.prototype && proto !== null) throw unknown("__proto__");
  for (const key of Object.getOwnPropertyNames(given)) {
    if (RESERVED.has(key) || !known.includes(key)) throw unknown(key);
  }
}

/** Keys that name an object's machinery, never a parameter, whatever a notebook's list says. */
const RESERVED: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/**
 * An adaptive design's planned repeats and their cap. An override of `repeats` alone moves the cap
 * with it (no silent cap below what was asked), unless `maxRepeats` is given too.
 */
export function repeatsWithCap(
  p: { readonly repeats: unknown; readonly maxRepeats: unknown },
  overrides: { readonly repeats?: unknown; readonly maxRepeats?: unknown },
): { readonly repeats: number; readonly maxRepeats: number } {
  const repeats = positiveInteger("repeats", p.repeats);
  const raised = overrides.repeats !== undefined && overrides.maxRepeats === undefined;
  const maxRepeats = positiveInteger("maxRepeats", raised ? Math.max(repeats, Number(p.maxRepeats)) : p.maxRepeats);
  if (maxRepeats < repeats) throw new ParameterError(`maxRepeats (${maxRepeats}) is smaller than repeats (${repeats})`);
  return { repeats, maxRepeats };
}

/** pgbench's clients and threads: each a positive integer, no more threads than clients. */
export function clientsAndThreads(p: { readonly clients: unknown; readonly threads: unknown }): {
  readonly clients: number;
  readonly threads: number;
} {
  const clients = positiveInteger("clients", p.clients);
  const threads = positiveInteger("threads", p.threads);
  if (threads > clients) throw new ParameterError(`threads (${threads}) cannot exceed clients (${clients})`);
  return { clients, threads };
}
