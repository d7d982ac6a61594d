/**
 * A notebook declares its claims as values (a `ClaimSet`); the engine checks them, places a run
 * against each regime, decides and renders the verdicts (docs/claims-and-regimes.md).
 */
import {
  allOf,
  decide,
  describeRule,
  factorText,
  FAMILY_ALPHA,
  holmRefutations,
  gatedByScale,
  planClaims,
  scalePosition,
  sensitivitySentence,
  type ClaimCheck,
  type ClaimKind,
  type ClaimPlan,
  type Decision,
  type Declaration,
  type Flagged,
  type RegimeFactor,
  type Rule,
  type Verdict,
} from "./claims";
import { atCoverage, intervalText, type Interval } from "./intervals";
import { lookLevel } from "./adaptive";
import { times } from "./format";
import fs from "node:fs";
import path from "node:path";

/** undefined: not known (yet). */
export type Position<K extends string> = Readonly<Partial<Record<K, number>>>;

/** One part of an all-of statistic, with its own rule where it differs, and the values behind its interval. */
export interface Part {
  readonly label: string;
  readonly interval: Interval | undefined;
  readonly rule?: Rule;
  readonly values?: readonly number[];
}

export interface Statistic<S> {
  readonly text: string;
  /** `times` ("1.23×") unless declared. */
  readonly fmt: (x: number) => string;
  /** undefined when what it needs did not run. */
  readonly of: (s: S) => Interval | readonly Part[] | undefined;
  readonly needs: string;
}

export interface SeedSentence {
  readonly original: string;
  readonly translation?: string;
  readonly figure?: string;
  /** When not a seed's, e.g. "the lab's question". */
  readonly whose?: string;
}

export interface Quotes {
  readonly source: string;
  /** A sentence to declare or to quote in a declaration's text; a sentence named not declared is refused. */
  readonly quote: (key: string) => SeedSentence;
  /** The original sentences of `keys`, quoted (to declare or to cite in a declaration's text), joined by a space. */
  readonly original: (...keys: string[]) => string;
  /** The sentences quotes.json gives a `notDeclared` reason, with it. */
  readonly notDeclared: readonly NotDeclared[];
  /** Keys neither quoted so far nor named not declared: a seed sentence the set forgot. */
  readonly unaccounted: () => string[];
}

/**
 * From the quotes.json beside its source (one file for both builds): the ledger of a seed's testable
 * sentences, each either quoted by the claims or given the reason it is not declared.
 */
export function readQuotes(compiledDir: string): Quotes {
  const source = path.resolve(compiledDir, "..", "..", "..", "..", "lib", "experiments", path.basename(compiledDir));
  const file = [compiledDir, source].map((d) => path.join(d, "quotes.json")).find((f) => fs.existsSync(f));
  if (!file) throw new DeclarationError(`no quotes.json beside ${source}`);
  let raw: { source?: unknown; quotes?: Record<string, Partial<SeedSentence> & { notDeclared?: string }> };
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8")) as typeof raw;
  } catch (error) {
    throw new DeclarationError(`${file}: not readable as JSON`, { cause: error });
  }
  const quotes = raw.quotes ?? {};
  if (typeof raw.source !== "string") throw new DeclarationError(`${file}: "source" must name the text quoted`);
  for (const [k, q] of Object.entries(quotes))
    if (typeof q.original !== "string" || !q.original)
      throw new DeclarationError(`${file}: quote "${k}" has no original`);
  const sentences = new Map(
    Object.entries(quotes).map(([k, { notDeclared: _, ...q }]) => [k, q as SeedSentence] as const),
  );
  const quoted = new Set<string>();
  const quote = (key: string) => {
    const q = sentences.get(key);
    if (!q) throw new DeclarationError(`${file}: no quote "${key}" (it has ${[...sentences.keys()].join(", ")})`);
    if (quotes[key].notDeclared) throw new DeclarationError(`${file}: quote "${key}" is quoted but named not declared`);
    quoted.add(key);
    return q;
  };
  return {
    source: raw.source,
    quote,
    original: (...keys) => keys.map((k) => quote(k).original).join(" "),
    notDeclared: [...sentences].flatMap(([k, sentence]) => {
      const reason = quotes[k].notDeclared;
      return reason ? [{ sentence, reason }] : [];
    }),
    unaccounted: () => [...sentences.keys()].filter((k) => !quoted.has(k) && !quotes[k].notDeclared),
  };
}

export interface ClaimCore<K extends string = string> {
  readonly id: string;
  readonly claim: string;
  readonly sentence: SeedSentence;
  readonly figure?: string;
  readonly kind: ClaimKind;
  readonly rule?: Rule;
  /** e.g. "'mostly not' read as under half". */
  readonly reading?: string;
  readonly regime: readonly K[];
  readonly regimeText: string;
  readonly mechanism?: string;
  /** On a direction: what of this machine sets its sign, so that only the seed's regime tests it. */
  readonly signSetBy?: string;
  readonly derivedFrom?: string;
  /** What would test it out of regime or when its mode did not run. */
  readonly howToTest: string;
  /** A claim about the emulation itself sets only this. */
  readonly emulates?: string;
  /**
   * "holm": an all-of statistic refuted by a part's interval stands only if Holm's step-down sign test over
   * the parts' values refutes a part too (family error FAMILY_ALPHA); else inconclusive, saying what it needs.
   */
  readonly refutation?: "holm";
}

export interface Claim<P, S, K extends string = string> extends ClaimCore<K> {
  readonly statistic: Statistic<S>;
  /** From this run's counters; "" when nothing was measured. */
  readonly why: (s: S) => string;
  readonly ours?: (s: S) => string;
  readonly arithmetic?: (s: S) => string;
  readonly absent?: { readonly before: (p: P) => boolean; readonly after: (s: S) => boolean; readonly reason: string };
  /** Verdict `emulated`, never evidence; not for a regime the emulation creates. */
  readonly emulatedWhen?: (s: S) => string | undefined;
  readonly emulatedBefore?: (p: P) => string | undefined;
}

export interface NotDeclared {
  readonly sentence: SeedSentence;
  readonly reason: string;
}

export interface ClaimSet<P, S, K extends string = string> {
  readonly notebook: string;
  readonly factors: Readonly<Record<K, RegimeFactor>>;
  readonly before: (p: P) => Position<K>;
  readonly after: (s: S) => Position<K>;
  readonly claims: readonly Claim<P, S, K>[];
  readonly notDeclared: readonly NotDeclared[];
}

/** A claim's statistic as declared, flat beside its other fields: its text, its value of the summary, what it needs. */
export interface StatisticSpec<S> {
  readonly statistic: string;
  readonly of: Statistic<S>["of"];
  readonly needs: string;
  /** The claim set's `fmt` unless declared, else `times` ("1.23×"). */
  readonly fmt?: (x: number) => string;
}

/** A claim as declared: what the engine fills in may be left out (no regime: gated by nothing; no why: ""). */
export type ClaimSpec<P, S, K extends string = string> = Omit<Claim<P, S, K>, "regime" | "why" | "statistic"> &
  StatisticSpec<S> & {
    readonly regime?: readonly K[];
    readonly why?: (s: S) => string;
  };

/** A claim set as declared: no factors, before or after where no regime gates its claims. */
export type ClaimSetSpec<P, S, K extends string = string> = Pick<ClaimSet<P, S, K>, "notebook"> &
  Partial<Pick<ClaimSet<P, S, K>, "factors" | "before" | "after">> & {
    readonly claims: readonly ClaimSpec<P, S, K>[];
    /** How the claims' statistics are written where a claim does not say: `times` unless given. */
    readonly fmt?: (x: number) => string;
    /** The seed's sentences (none where the question is the lab's): each is quoted or named not declared. */
    readonly quotes?: Quotes;
  };

export type AnyClaimSet = ClaimSet<never, never, string>;

/** Thrown when the module is loaded. */
export class DeclarationError extends Error {
  override readonly name = "DeclarationError";
}

const factorBand = (f: RegimeFactor): [number, number] => [f.seed * f.within[0], f.seed * f.within[1]];

export function ruleBand(rule: Rule): [number, number] {
  switch (rule.kind) {
    case "above":
      return [rule.margin, Infinity];
    case "below":
      return [-Infinity, rule.margin];
    case "inside":
      return [rule.low, rule.high];
  }
}

const near = (a: number, b: number) =>
  a === b || (Number.isFinite(a) && Number.isFinite(b) && Math.abs(a - b) <= 0.1 * Math.max(Math.abs(a), Math.abs(b)));

export function sameBand(f: RegimeFactor, rule: Rule): boolean {
  const [a, b] = factorBand(f);
  const [c, d] = ruleBand(rule);
  return near(a, c) && near(b, d);
}

const noWhy = () => "";

/** Fills in what a declaration left out; no regime band may equal its rule's (within 10 %). */
export function declare<P, S, K extends string>(spec: ClaimSetSpec<P, S, K>): ClaimSet<P, S, K> {
  const { quotes, fmt: setFmt = times, ...rest } = spec;
  const set: ClaimSet<P, S, K> = {
    factors: {} as Record<K, RegimeFactor>,
    before: () => ({}) as Position<K>,
    after: () => ({}) as Position<K>,
    ...rest,
    notDeclared: quotes?.notDeclared ?? [],
    claims: spec.claims.map(({ statistic: text, of, needs, fmt, ...c }) => ({
      ...c,
      regime: c.regime ?? [],
      why: c.why ?? noWhy,
      statistic: { text, of, needs, fmt: fmt ?? setFmt },
    })),
  };
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const c of set.claims) {
    if (ids.has(c.id)) problems.push(`(${c.id}) declared twice`);
    ids.add(c.id);
    for (const k of c.regime) {
      const f = set.factors[k];
      if (!f) problems.push(`(${c.id}) names an unknown regime factor "${k}"`);
      else if (c.rule && sameBand(f, c.rule))
        problems.push(`(${c.id}) regime band of "${f.what}" equals its rule's band: the placement would decide it`);
    }
    if ((c.kind === "direction" || c.kind === "mechanism") && !c.mechanism)
      problems.push(`(${c.id}) is a ${c.kind} with no mechanism`);
    if (c.kind === "derived" && !c.derivedFrom) problems.push(`(${c.id}) is derived from nothing`);
    if (c.signSetBy && (c.kind !== "direction" || !c.regime.length))
      problems.push(`(${c.id}) has its sign set by the machine but is not a direction with a regime`);
    if (c.kind !== "derived" && !c.rule) problems.push(`(${c.id}) has no rule`);
    if (!c.sentence.original) problems.push(`(${c.id}) has no seed sentence`);
    if (!(c.figure ?? c.sentence.figure))
      problems.push(`(${c.id}) has no figure (say "no figure" when the seed gives none)`);
    if ((c.emulatedWhen || c.emulatedBefore) && !c.emulates)
      problems.push(`(${c.id}) can be emulated but does not say which inputs, or what the emulation can show`);
    if (c.refutation && c.rule?.kind === "inside")
      problems.push(`(${c.id}) confirms a refutation by a one-sided test, which needs an "above" or "below" rule`);
    if (Boolean(c.emulatedWhen) !== Boolean(c.emulatedBefore))
      problems.push(`(${c.id}) must say when it is emulated both before the run and after it`);
  }
  for (const k of quotes?.unaccounted() ?? [])
    problems.push(`quotes.json's "${k}" is neither quoted by a claim nor given a reason it is not declared`);
  if (problems.length) throw new DeclarationError(`${set.notebook}: ${problems.join("; ")}`);
  return set;
}

export interface Measured<K extends string = string> {
  readonly statistic: Interval | readonly Part[] | undefined;
  readonly position: Position<K>;
  readonly absent?: string;
  readonly emulated?: string;
  readonly level?: number;
}

export interface Outcome {
  readonly verdict: Verdict;
  readonly reason: string;
  readonly scale?: string;
  readonly interval?: Interval;
}

const isParts = (x: Interval | readonly Part[]): x is readonly Part[] => Array.isArray(x);

function decideStatistic(
  rule: Rule,
  stat: Interval | readonly Part[],
  fmt: (x: number) => string,
  minCoverage?: number,
): Decision {
  if (!isParts(stat)) return decide(rule, stat, { fmt, minCoverage });
  const parts = stat.map((p) => ({ p, d: decide(p.rule ?? rule, p.interval, { fmt, minCoverage }) }));
  const verdict = allOf(parts.map((x) => x.d));
  // One reason: the part that decides it (the first not held, or the first, when all held).
  const first =
    parts.find((x) => x.d.verdict === verdict && verdict !== "held") ?? parts.find((x) => x.d.verdict !== "held");
  if (verdict === "held")
    return {
      verdict,
      decidedBy:
        `${parts[0].p.label}: ${parts[0].d.decidedBy}` +
        (parts.length > 1
          ? `, and so did ${parts
              .slice(1)
              .map((x) => x.p.label)
              .join(", ")}`
          : ""),
    };
  return { verdict, decidedBy: first ? `${first.p.label}: ${first.d.decidedBy}` : "no part" };
}

/** The factors that gate this claim: all when `gatedByScale`, else its conditions of the run. */
export function gatingFactors<K extends string>(
  claim: ClaimCore<K>,
  factors: Readonly<Record<K, RegimeFactor>>,
): RegimeFactor[] {
  const all = claim.regime.map((k) => factors[k]);
  return gatedByScale(claim) ? all : all.filter((f) => f.condition);
}

export function decideClaim<K extends string>(
  claim: ClaimCore<K>,
  factors: Readonly<Record<K, RegimeFactor>>,
  fmt: (x: number) => string,
  m: Measured<K>,
): Outcome {
  const here = Object.fromEntries(claim.regime.map((k) => [factors[k].what, m.position[k]]));
  const pos = scalePosition(
    claim.regime.map((k) => factors[k]),
    here,
  );
  const scale = pos.text || undefined;
  const interval = m.statistic ? (isParts(m.statistic) ? m.statistic[0]?.interval : m.statistic) : undefined;
  if (claim.kind === "derived") {
    return { verdict: "derived", reason: `derived from ${claim.derivedFrom}: shown, not counted`, scale, interval };
  }
  if (!claim.rule) return { verdict: "inconclusive", reason: "no rule declared", scale };
  if (m.absent) return { verdict: "not tested at this scale", reason: `${m.absent}; ${claim.howToTest}`, scale };
  if (m.emulated) {
    const o = decideClaim(claim, factors, fmt, { ...m, emulated: undefined });
    return {
      ...o,
      verdict: "emulated",
      reason: `${m.emulated}: a consistency check of the emulation, not evidence; consistent with "${o.verdict}": ${o.reason}`,
    };
  }
  // A direction or mechanism is gated by the run's conditions alone, unless the machine sets its sign.
  const gate = scalePosition(gatingFactors(claim, factors), here);
  if (!gate.inside) {
    const measured = interval ? `${intervalText(interval, fmt)} here` : "nothing measured here";
    return {
      verdict: "not tested at this scale",
      reason: `${measured}; outside the regime: ${gate.brief.join(", ")}; ${claim.howToTest}`,
      scale,
      interval,
    };
  }
  if (!m.statistic || (isParts(m.statistic) && !m.statistic.length))
    return { verdict: "inconclusive", reason: "needs what this run did not measure", scale };
  const d = decideStatistic(claim.rule, m.statistic, fmt, m.level);
  if (claim.refutation && d.verdict === "did not hold" && isParts(m.statistic) && claim.rule.kind !== "inside")
    return { ...holmConfirmed(claim.rule, m.statistic, d.decidedBy), scale, interval };
  return { verdict: d.verdict, reason: d.decidedBy, scale, interval };
}

/** A refutation by one part's interval, confirmed or not by Holm's step-down sign test over all the parts. */
function holmConfirmed(rule: Extract<Rule, { kind: "above" | "below" }>, parts: readonly Part[], decidedBy: string) {
  const tests = parts.map((p) => ({ label: p.label, values: p.values ?? [] }));
  const refuted = holmRefutations(tests, rule);
  const p = refuted.map((r) => `${r.label} p = ${r.p.toPrecision(2)} ≤ ${r.threshold.toPrecision(3)}`);
  if (refuted.length) return { verdict: "did not hold" as const, reason: `${decidedBy}; Holm: ${p.join(", ")}` };
  // The fewest values against the claim whose one-sided sign test p = 0.5^n passes the strictest Holm threshold.
  const need = Math.max(1, Math.ceil(Math.log2(parts.length / FAMILY_ALPHA)));
  return {
    verdict: "inconclusive" as const,
    reason: `${decidedBy}, but a refutation must survive Holm's correction over ${parts.length} parts (family error ${FAMILY_ALPHA * 100} %): it needs ≥ ${need} values against the claim in a part`,
  };
}

function seedText(c: ClaimCore): string {
  const t = c.sentence.translation ? ` → "${c.sentence.translation}"` : "";
  const whose = c.sentence.whose ? `[${c.sentence.whose}] ` : "";
  return `${whose}${c.sentence.original}${t}. Figures: ${c.figure ?? c.sentence.figure}`;
}

export function declaration<K extends string>(
  c: ClaimCore<K>,
  factors: Readonly<Record<K, RegimeFactor>>,
  statistic: { readonly text: string; readonly fmt: (x: number) => string },
): Declaration {
  const distance = c.regime.map((k) => factors[k]);
  const gates = gatingFactors(c, factors);
  const stated = distance.filter((f) => !gates.includes(f));
  const regime =
    c.regimeText +
    (gates.length ? `. Decided only at ${gates.map(factorText).join(", ")}` : "") +
    (stated.length ? `. Stated, not a gate: ${stated.map(factorText).join(", ")}` : "");
  return {
    id: c.id,
    claim:
      c.kind === "mechanism"
        ? `[the lab's check] ${c.claim}`
        : c.sentence.whose
          ? `[${c.sentence.whose}] ${c.claim}`
          : c.claim,
    seed: seedText(c),
    regime,
    statistic: statistic.text,
    rule: c.rule
      ? (c.reading ? `${c.reading}: ` : "") + describeRule(c.rule, statistic.fmt)
      : `none: arithmetic on ${c.derivedFrom ?? "other figures"}, shown and never counted`,
    kind: c.kind,
    ...(distance.length ? { distance } : {}),
    ...(c.mechanism ? { mechanism: c.mechanism } : {}),
    ...(c.signSetBy ? { signSetBy: c.signSetBy } : {}),
    ...(c.derivedFrom ? { derivedFrom: c.derivedFrom } : {}),
    ...(c.emulates ? { emulates: c.emulates } : {}),
  };
}

export function declarations<P, S, K extends string>(set: ClaimSet<P, S, K>): Declaration[] {
  return set.claims.map((c) => declaration(c, set.factors, c.statistic));
}

/** Intervals `atCoverage`. */
function atLevel(stat: Interval | readonly Part[] | undefined, level: number | undefined) {
  if (!stat || level === undefined) return stat;
  return isParts(stat)
    ? stat.map((p) => (p.interval ? { ...p, interval: atCoverage(p.interval, level) } : p))
    : atCoverage(stat, level);
}

function measure<P, S, K extends string>(set: ClaimSet<P, S, K>, c: Claim<P, S, K>, s: S): Measured<K> {
  const level = lookLevel(s);
  return {
    level,
    statistic: atLevel(c.statistic.of(s), level),
    position: set.after(s),
    absent: c.absent?.after(s) ? c.absent.reason : undefined,
    emulated: c.emulatedWhen?.(s),
  };
}

export interface Without<S> {
  readonly summary: S;
  readonly flagged: Flagged;
}

export function judge<P, S, K extends string>(set: ClaimSet<P, S, K>, s: S, without?: Without<S>): ClaimCheck[] {
  return set.claims.map((c) => judgeOne(set, c.id, s, without));
}

export function judgeOne<P, S, K extends string>(
  set: ClaimSet<P, S, K>,
  id: string,
  s: S,
  without?: Without<S>,
): ClaimCheck {
  const c = set.claims.find((x) => x.id === id);
  if (!c) throw new Error(`${set.notebook}: no claim (${id})`);
  const fmt = c.statistic.fmt;
  const m = measure(set, c, s);
  const out = decideClaim(c, set.factors, fmt, m);
  const missing = !m.statistic && (out.verdict === "inconclusive" || out.verdict === "emulated");
  const stat = out.interval ? intervalText(out.interval, fmt) : "";
  const extra = c.ours?.(s) ?? "";
  const decidedBy =
    c.kind === "derived"
      ? `${m.absent ?? c.arithmetic?.(s) ?? ""}; derived from ${c.derivedFrom}: not counted as evidence`
      : missing
        ? `${m.emulated ? `${m.emulated}: not evidence; ` : ""}needs ${c.statistic.needs}; ${c.howToTest}`
        : out.reason;
  const sensitivity =
    without && (out.verdict === "held" || out.verdict === "did not hold" || out.verdict === "inconclusive") && !missing
      ? sensitivitySentence(without.flagged, out.verdict, () => {
          const w = measure(set, c, without.summary);
          if (!w.statistic) return undefined;
          const o = decideClaim(c, set.factors, fmt, w);
          return { verdict: o.verdict, decidedBy: o.reason };
        })
      : undefined;
  return {
    ...declaration(c, set.factors, c.statistic),
    ours: m.absent ? "not run" : [stat, extra].filter(Boolean).join("; ") || "no data",
    ...(out.interval ? { interval: out.interval } : {}),
    verdict: out.verdict,
    decidedBy,
    why: out.verdict === "not tested at this scale" && m.absent ? "" : c.why(s),
    ...(sensitivity ? { sensitivity } : {}),
    ...(out.scale ? { scale: out.scale } : {}),
    ...(c.kind === "derived" && c.arithmetic && !m.absent ? { arithmetic: c.arithmetic(s) } : {}),
  };
}

/** Before it starts. */
export function plan<P, S, K extends string>(set: ClaimSet<P, S, K>, p: P): ClaimPlan[] {
  const where = set.before(p);
  const planned: Record<string, number | undefined> = {};
  for (const k of Object.keys(set.factors) as K[]) planned[set.factors[k].what] = where[k];
  const unavailable: Record<string, string> = {};
  const emulated: Record<string, string> = {};
  for (const c of set.claims) {
    if (c.absent?.before(p)) unavailable[c.id] = c.absent.reason;
    const e = c.emulatedBefore?.(p);
    if (e) emulated[c.id] = e;
  }
  return planClaims(declarations(set), planned, { unavailable, emulated });
}

/** The seed's sentences the set does not declare, with the reason. */
export function notDeclaredLines(set: { readonly notDeclared: readonly NotDeclared[] }): string[] {
  return set.notDeclared.map(
    (n) =>
      `${n.sentence.original}${n.sentence.translation ? ` → "${n.sentence.translation}"` : ""}: not declared, ${n.reason}`,
  );
}

// The kit: what declarations share

/** `text(x)` when `x` is there (not undefined, null or ""), else "". */
export const when = <T>(x: T | undefined | null, text: (x: T) => string): string =>
  x === undefined || x === null || x === "" ? "" : text(x);

/** A claim's text of what `get` finds in the summary; "" where it finds nothing. */
export const from =
  <S, T>(get: (s: S) => T | undefined | null, text: (x: T, s: S) => string) =>
  (s: S): string =>
    when(get(s), (x) => text(x, s));

/** An `absent`: not run where the parameters say so before the run, or the summary after it. */
export function absentWhen<P, S>(reason: string, before: (p: P) => boolean, after: (s: S) => boolean = () => false) {
  return { reason, before, after };
}

/** `absentUnless({ planned, ran })(needed, reason)`: not run unless both lists hold all of `needed` (or pass it). */
export const absentUnless =
  <P, S, T>(list: { readonly planned: (p: P) => readonly T[]; readonly ran: (s: S) => readonly T[] }) =>
  (needed: readonly T[] | ((xs: readonly T[]) => boolean), reason: string) => {
    const has = typeof needed === "function" ? needed : (xs: readonly T[]) => needed.every((x) => xs.includes(x));
    return { reason, before: (p: P) => !has(list.planned(p)), after: (s: S) => !has(list.ran(s)) };
  };

/** A claim's statistic fields (to spread into it) from its text, its value of the summary and what it needs. */
export const stat = <S>(
  text: string,
  of: Statistic<S>["of"],
  needs: string,
  fmt: (x: number) => string = times,
): Required<StatisticSpec<S>> => ({ statistic: text, of, needs, fmt });

/** Whose the seed's value is where not the seed's, and whether the factor is a condition of the run. */
export type FactorNote = Pick<RegimeFactor, "condition" | "source">;

/** A regime factor: here ÷ `seed` inside `within`. */
export const factor = (
  what: string,
  seed: number,
  within: readonly [number, number],
  unit = "",
  note: FactorNote = {},
): RegimeFactor => ({ what, seed, unit, within, ...note });
/** A regime factor at exactly the seed's value. */
export const exactly = (what: string, seed: number, unit = "", note?: FactorNote) =>
  factor(what, seed, [1, 1], unit, note);
/** A regime factor at the seed's value or above. */
export const atLeast = (what: string, seed: number, unit = "", note?: FactorNote) =>
  factor(what, seed, [1, Infinity], unit, note);
/** A regime factor at the seed's value or below. */
export const atMost = (what: string, seed: number, unit = "", note?: FactorNote) =>
  factor(what, seed, [0, 1], unit, note);

/** Each of a claim's texts (`ours`, `why`, …) `from` the same thing found in the summary. */
export const textsFrom = <S, T, K extends string>(
  get: (s: S) => T | undefined | null,
  texts: { readonly [k in K]: (x: T, s: S) => string },
): { readonly [k in K]: (s: S) => string } =>
  Object.fromEntries(Object.entries<(x: T, s: S) => string>(texts).map(([k, text]) => [k, from(get, text)])) as {
    readonly [k in K]: (s: S) => string;
  };

/** `versus(a, b)(f)`: "f(a) vs f(b)", one figure of two things side by side. */
export const versus =
  <T>(a: T, b: T) =>
  (f: (x: T) => string): string =>
    `${f(a)} vs ${f(b)}`;

/** All of `parts`, or undefined unless each has its interval. */
export const allParts = (parts: readonly Part[]): readonly Part[] | undefined =>
  parts.every((p) => p.interval) ? parts : undefined;

/** `parts`, or undefined when there are none. */
export const someParts = (parts: readonly Part[]): readonly Part[] | undefined => (parts.length ? parts : undefined);
