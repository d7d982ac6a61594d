/**
 * A notebook's parameters, each declared once: what it means (the line `--help` and docs/parameters.md
 * print), the type shown there, and the check a value gets before anything starts. A params file's
 * TypeScript type is inferred from its declaration (`ParamsOf`), so no interface repeats the names.
 *
 * Written here rather than taken from a validation library: none is a dependency (zod, valibot, ajv
 * are not installed), a library's messages would still have to be rewritten into the lab's ("rows
 * must be a positive integer, got 0"), and the type text on `--help` would still be ours. The kinds
 * below are what the notebooks use; a check that reads two parameters stays code in the params file.
 *
 * A params file exports the declaration and its type under one name (`export const IndexTypesParams =
 * declareParams({…}); export type IndexTypesParams = ParamsOf<typeof IndexTypesParams>`), as zod's
 * schemas do: the type's importers are unchanged, and docs/parameters.md names the declaration by it.
 */
import { ParameterError } from "./validate";

/** One parameter: its meaning, its type as `--help` prints it, and its check (the value, normalised). */
export interface Param<T> {
  readonly meaning: string;
  readonly type: string;
  readonly check: (name: string, value: unknown) => T;
}

type Declarations = Readonly<Record<string, Param<unknown>>>;

type Checked<D extends Declarations> = { readonly [K in keyof D]: D[K] extends Param<infer T> ? T : never };

/** The parameters' type, of declarations or of `declareParams`' result: each member the type it checks to. */
export type ParamsOf<D> =
  D extends DeclaredParams<infer X extends Declarations> ? Checked<X> : D extends Declarations ? Checked<D> : never;

const got = (value: unknown) => `got ${JSON.stringify(value)}`;
const fail = (message: string): never => {
  throw new ParameterError(message);
};

/** A notebook's declared parameters, in the order `--help` lists them. */
export class DeclaredParams<D extends Declarations> {
  constructor(readonly declarations: D) {}

  get names(): string[] {
    return Object.keys(this.declarations);
  }

  /** Every declared member of `p` checked and normalised; members it does not declare pass as they are. */
  check<P extends Checked<D>>(p: P): P {
    const checked = Object.entries(this.declarations).map(([name, d]) => [
      name,
      d.check(name, (p as Record<string, unknown>)[name]),
    ]);
    return { ...p, ...Object.fromEntries(checked) } as P;
  }

  /** For `--help` and docs/parameters.md: name, type and meaning, in declaration order. */
  list(): { readonly name: string; readonly type: string; readonly meaning: string }[] {
    return Object.entries(this.declarations).map(([name, d]) => ({ name, type: d.type, meaning: d.meaning }));
  }
}

export function declareParams<D extends Declarations>(declarations: D): DeclaredParams<D> {
  return new DeclaredParams(declarations);
}

/** A kind of the lab's own: the type text and the check written where it is declared. */
export function custom<T>(type: string, meaning: string, check: (name: string, value: unknown) => T): Param<T> {
  return { meaning, type, check };
}

interface Range {
  readonly min?: number;
  readonly max?: number;
  /** min itself is refused ("> min"). */
  readonly aboveMin?: boolean;
  /** max itself is refused ("< max"). */
  readonly belowMax?: boolean;
  /** Said after the range, in parentheses, when a value is refused. */
  readonly hint?: string;
}

function rangeText(r: Range): string {
  const parts = [
    r.min === undefined ? "" : `${r.aboveMin ? ">" : "≥"} ${r.min}`,
    r.max === undefined ? "" : `${r.belowMax ? "<" : "≤"} ${r.max}`,
  ].filter(Boolean);
  return [parts.join(" and "), r.hint ? `(${r.hint})` : ""].filter(Boolean).join(" ");
}

const inRange = (v: number, r: Range) =>
  (r.min === undefined || (r.aboveMin ? v > r.min : v >= r.min)) &&
  (r.max === undefined || (r.belowMax ? v < r.max : v <= r.max));

function checkNumber(name: string, v: unknown, range: Range): number {
  return typeof v === "number" && Number.isFinite(v) && inRange(v, range)
    ? v
    : fail(`${name} must be ${["a number", rangeText(range)].filter(Boolean).join(" ")}, ${got(v)}`);
}

/** A finite number in a range. */
export function number(meaning: string, range: Range = {}): Param<number> {
  return custom("number", meaning, (name, v) => checkNumber(name, v, range));
}

/** What an integer kind says it allows: "a positive integer", or its range. */
function integerText(min: number, max: number | undefined, hint?: string): string {
  const text =
    max !== undefined ? `an integer from ${min} to ${max}` : min === 1 ? "a positive integer" : `an integer ≥ ${min}`;
  return hint ? `${text} (${hint})` : text;
}

function checkInteger(name: string, v: unknown, min: number, max: number | undefined, hint?: string): number {
  return typeof v === "number" && Number.isInteger(v) && v >= min && (max === undefined || v <= max)
    ? v
    : fail(`${name} must be ${integerText(min, max, hint)}, ${got(v)}`);
}

/** An integer from `min` (default 1) to `max` (default: none). */
export function integer(
  meaning: string,
  r: { readonly min?: number; readonly max?: number; readonly hint?: string } = {},
): Param<number> {
  return custom("number", meaning, (name, v) => checkInteger(name, v, r.min ?? 1, r.max, r.hint));
}

interface ListOptions {
  /** [] is accepted (a sweep that may be skipped). */
  readonly empty?: boolean;
  /** A value listed twice: dropped, or refused ("lists … twice"). */
  readonly repeated?: "drop" | "refuse";
  /** What one item is, for the refusal of a repeat ("lists a level twice"); default "value". */
  readonly item?: string;
}

function checkList<T>(name: string, v: unknown, allowed: string, o: ListOptions, item: (n: string, x: unknown) => T) {
  if (!Array.isArray(v) || (v.length === 0 && !o.empty)) {
    const shape = o.empty ? "a list of" : "a non-empty list of";
    return fail(`${name} must be ${shape} ${allowed}, ${got(v)}`);
  }
  const list = v.map((x, i) => item(`${name}[${i}]`, x));
  const distinct = [...new Set(list)];
  if (o.repeated === "refuse" && distinct.length !== list.length)
    fail(`${name} lists a ${o.item ?? "value"} twice: ${list.join(", ")}`);
  return o.repeated === "drop" ? distinct : list;
}

/** A list of integers from `min` (default 1) to `max`; `order` sorts it. */
export function integers(
  meaning: string,
  o: ListOptions & { readonly min?: number; readonly max?: number; readonly order?: "ascending" | "descending" } = {},
): Param<readonly number[]> {
  const min = o.min ?? 1;
  const allowed = min === 1 && o.max === undefined ? "positive integers" : "integers";
  return custom("number[]", meaning, (name, v) => {
    const list = checkList(name, v, allowed, o, (n, x) => checkInteger(n, x, min, o.max));
    if (o.order) list.sort((a, b) => (o.order === "ascending" ? a - b : b - a));
    return list;
  });
}

/** A list of finite numbers, each in a range; `what` names them when the list is refused ("round trips in ms"). */
export function numbers(meaning: string, o: ListOptions & Range & { readonly what: string }): Param<readonly number[]> {
  return custom("number[]", meaning, (name, v) => checkList(name, v, o.what, o, (n, x) => checkNumber(n, x, o)));
}

const union = (allowed: readonly (string | number)[]) => allowed.map((a) => JSON.stringify(a)).join(" | ");

function checkOneOf<T extends string | number>(name: string, v: unknown, allowed: readonly T[], hint?: string): T {
  return (allowed as readonly unknown[]).includes(v)
    ? (v as T)
    : fail(`${name} must be one of ${allowed.join(", ")}${hint ? ` (${hint})` : ""}; ${got(v)}`);
}

/** One of a list of values. */
export function oneOf<const T extends string>(allowed: readonly T[], meaning: string): Param<T> {
  return custom(union(allowed), meaning, (name, v) => checkOneOf(name, v, allowed));
}

/**
 * A list drawn from `allowed`; with `order: "allowed"` put in the allowed list's order (the order
 * a reader wrote them in does not change the run), with `hint` said when an item is refused.
 */
export function listOf<const T extends string | number>(
  allowed: readonly T[],
  meaning: string,
  o: ListOptions & { readonly order?: "allowed" | "ascending"; readonly hint?: string; readonly type?: string } = {},
): Param<readonly T[]> {
  const inner = union(allowed);
  const type = o.type ?? (allowed.length > 1 ? `(${inner})[]` : `${inner}[]`);
  return custom(type, meaning, (name, v) => {
    const list = checkList(name, v, `values drawn from ${allowed.join(", ")}`, o, (n, x) =>
      checkOneOf(n, x, allowed, o.hint),
    );
    if (o.order === "allowed") return allowed.filter((a) => list.includes(a));
    if (o.order === "ascending") return [...list].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return list;
  });
}

/** A string. */
export function text(meaning: string): Param<string> {
  return custom("string", meaning, (name, v) =>
    typeof v === "string" ? v : fail(`${name} must be a string, ${got(v)}`),
  );
}

/** A list of strings (may be empty). */
export function texts(meaning: string): Param<readonly string[]> {
  return custom("string[]", meaning, (name, v) => stringList(name, v));
}

export function stringList(name: string, v: unknown): string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string")
    ? v
    : fail(`${name} must be a list of strings, ${got(v)}`);
}

/** true or false. */
export function flag(meaning: string): Param<boolean> {
  return custom("boolean", meaning, (name, v) =>
    typeof v === "boolean" ? v : fail(`${name} must be true or false, ${got(v)}`),
  );
}

/** The declared kind, or null (the notebook then chooses). */
export function orNull<T>(param: Param<T>): Param<T | null> {
  return custom(`${param.type} | null`, param.meaning, (name, v) => (v === null ? null : param.check(name, v)));
}
