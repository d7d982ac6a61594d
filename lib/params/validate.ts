/**
 * Parameter checks that run before anything starts, with messages a reader can act on.
 */

export class ParameterError extends Error {
  override readonly name = "ParameterError";
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

/*
 * Checks across two parameters, each already checked on its own (lib/params/declare.ts).
 */

/**
 * An adaptive design's planned count (`repeats`, 04's `sets`) and its cap. An override of the
 * planned count alone moves the cap with it (no silent cap below what was asked), unless the cap is
 * given too.
 */
export function plannedWithCap<K extends string, C extends string>(
  p: Readonly<Record<K | C, number>>,
  overrides: Readonly<Partial<Record<K | C, unknown>>>,
  planned: K,
  cap: C,
): Record<K | C, number> {
  const raised = overrides[planned] !== undefined && overrides[cap] === undefined;
  const capped = raised ? Math.max(p[planned], p[cap]) : p[cap];
  if (capped < p[planned]) throw new ParameterError(`${cap} (${capped}) is smaller than ${planned} (${p[planned]})`);
  return { [planned]: p[planned], [cap]: capped } as Record<K | C, number>;
}

/** `repeats` and `maxRepeats`, as plannedWithCap says. */
export const repeatsWithCap = (
  p: { readonly repeats: number; readonly maxRepeats: number },
  overrides: { readonly repeats?: unknown; readonly maxRepeats?: unknown },
) => plannedWithCap(p, overrides, "repeats", "maxRepeats");

/** pgbench's clients and threads: no more threads than clients. */
export function clientsAndThreads(p: { readonly clients: number; readonly threads: number }): {
  readonly clients: number;
  readonly threads: number;
} {
  if (p.threads > p.clients) throw new ParameterError(`threads (${p.threads}) cannot exceed clients (${p.clients})`);
  return { clients: p.clients, threads: p.threads };
}
