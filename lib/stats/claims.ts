/**
 * A claim is a hypothesis declared before any number is seen; its verdict comes from where the
 * interval lies against the margins, never a point estimate (docs/statistics.md).
 */
import type { Interval } from "./intervals";
import { intervalText } from "./intervals";

export const VERDICTS = [
  "held",
  "did not hold",
  "inconclusive",
  "not tested at this scale",
  "emulated",
  "derived",
] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Decides where it may be judged (docs/claims-and-regimes.md). */
export const CLAIM_KINDS = ["magnitude", "direction", "equivalence", "mechanism", "derived"] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

/** here ÷ seed: `[0.5, 2]` within a factor 2; `[1, Infinity]` at least the seed's. */
export interface RegimeFactor {
  readonly what: string;
  readonly seed: number;
  readonly unit: string;
  readonly within: readonly [number, number];
  /** "the seed's" unless given. */
  readonly source?: string;
  /**
   * A condition of the run (the machine's state), not its scale: it gates every kind of claim that
   * names it, a direction or mechanism too, since outside it the statistic measures the condition.
   */
  readonly condition?: true;
}

export interface Declaration {
  readonly id: string;
  readonly claim: string;
  readonly seed: string;
  readonly regime: string;
  readonly statistic: string;
  readonly rule: string;
  readonly kind: ClaimKind;
  /** On a direction claim, the factors its verdict states the scale in. */
  readonly distance?: readonly RegimeFactor[];
  /** The mechanism behind the sign. */
  readonly mechanism?: string;
  /** On a direction: what of this machine sets its sign; then it is decided only inside its distance. */
  readonly signSetBy?: string;
  readonly derivedFrom?: string;
  readonly emulates?: string;
}

/** A magnitude, an equivalence, or a direction whose sign the machine sets is decided only inside its distance. */
export const gatedByScale = (d: Pick<Declaration, "kind" | "signSetBy">): boolean =>
  d.kind === "magnitude" || d.kind === "equivalence" || d.signSetBy !== undefined;

export interface ClaimCheck extends Declaration {
  readonly ours: string;
  readonly interval?: Interval;
  readonly verdict: Verdict;
  readonly decidedBy: string;
  readonly why: string;
  readonly sensitivity?: string;
  readonly scale?: string;
  readonly arithmetic?: string;
}

export type Rule =
  | { readonly kind: "above"; readonly margin: number }
  | { readonly kind: "below"; readonly margin: number }
  | { readonly kind: "inside"; readonly low: number; readonly high: number };

export interface Decision {
  readonly verdict: Verdict;
  readonly decidedBy: string;
}

/** The min–max range of n paired values covers the median with 1 − 2·0.5ⁿ: ≥ 90 % from n = 5. */
export const MIN_COVERAGE = 0.9;

const fmtDefault = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));

export function describeRule(rule: Rule, fmt: (x: number) => string = fmtDefault): string {
  switch (rule.kind) {
    case "above":
      return `held if the whole interval is above ${fmt(rule.margin)}; did not hold if it is wholly at or below ${fmt(rule.margin)}`;
    case "below":
      return `held if the whole interval is below ${fmt(rule.margin)}; did not hold if it is wholly at or above ${fmt(rule.margin)}`;
    case "inside":
      return (
        `held if the whole interval lies inside ${fmt(rule.low)}–${fmt(rule.high)}; ` +
        `did not hold if it lies wholly outside it`
      );
  }
}

export interface DecideOptions {
  readonly fmt?: (x: number) => string;
  readonly minCoverage?: number;
}

export function decide(rule: Rule, interval: Interval | undefined, options: DecideOptions = {}): Decision {
  const fmt = options.fmt ?? fmtDefault;
  const minCoverage = options.minCoverage ?? MIN_COVERAGE;
  if (!interval || !Number.isFinite(interval.low) || !Number.isFinite(interval.high)) {
    return { verdict: "inconclusive", decidedBy: "no interval: the conditions it needs did not finish" };
  }
  const shown = intervalText(interval, fmt);
  let side: "held" | "did not hold" | undefined;
  let straddles = "";
  switch (rule.kind) {
    case "above":
      if (interval.low > rule.margin) side = "held";
      else if (interval.high <= rule.margin) side = "did not hold";
      else straddles = `${shown} straddles ${fmt(rule.margin)}`;
      break;
    case "below":
      if (interval.high < rule.margin) side = "held";
      else if (interval.low >= rule.margin) side = "did not hold";
      else straddles = `${shown} straddles ${fmt(rule.margin)}`;
      break;
    case "inside":
      if (interval.low >= rule.low && interval.high <= rule.high) side = "held";
      else if (interval.high < rule.low || interval.low > rule.high) side = "did not hold";
      else straddles = `${shown} reaches across the edge of ${fmt(rule.low)}–${fmt(rule.high)}`;
      break;
  }
  if (side === undefined) {
    return { verdict: "inconclusive", decidedBy: `${straddles}: ${moreRepeats(rule, interval, fmt)}` };
  }
  if (interval.coverage < minCoverage) {
    const need = repeatsForCoverage(minCoverage);
    return {
      verdict: "inconclusive",
      decidedBy:
        `${shown} would say "${side}", but it covers the median with only ${Math.round(interval.coverage * 100)} %: ` +
        `needs ≥ ${need} paired repeats (has ${interval.n})`,
    };
  }
  return {
    verdict: side,
    decidedBy:
      side === "held" ? `${shown}: ${describeSide(rule, fmt, true)}` : `${shown}: ${describeSide(rule, fmt, false)}`,
  };
}

function describeSide(rule: Rule, fmt: (x: number) => string, held: boolean): string {
  switch (rule.kind) {
    case "above":
      return held ? `wholly above ${fmt(rule.margin)}` : `wholly at or below ${fmt(rule.margin)}`;
    case "below":
      return held ? `wholly below ${fmt(rule.margin)}` : `wholly at or above ${fmt(rule.margin)}`;
    case "inside":
      return held
        ? `wholly inside ${fmt(rule.low)}–${fmt(rule.high)}`
        : `wholly outside ${fmt(rule.low)}–${fmt(rule.high)}`;
  }
}

export function repeatsForCoverage(coverage: number): number {
  let n = 1;
  while (1 - 2 * 0.5 ** n < coverage) n++;
  return n;
}

/**
 * An interval narrows about as 1/√n, so only a median off the margin can be decided (after about
 * n·(half-width ÷ distance)² repeats); a median on the margin cannot, at any n.
 */
export function moreRepeats(rule: Rule, interval: Interval, fmt: (x: number) => string = fmtDefault): string {
  const edges = rule.kind === "inside" ? [rule.low, rule.high] : [rule.margin];
  const edge = edges.reduce((a, b) => (Math.abs(b - interval.estimate) < Math.abs(a - interval.estimate) ? b : a));
  const width = interval.high - interval.low;
  const distance = Math.abs(interval.estimate - edge);
  if (!(width > 0) || distance <= 0.01 * width) {
    return (
      `its median ${fmt(interval.estimate)} sits on ${fmt(edge)}: more repeats narrow the interval around it ` +
      `and cannot move it past the margin, so this rule cannot decide the claim here`
    );
  }
  const half = interval.estimate > edge ? interval.estimate - interval.low : interval.high - interval.estimate;
  const need = Math.max(interval.n + 1, Math.ceil(interval.n * (half / distance) ** 2));
  return (
    `its median ${fmt(interval.estimate)} lies ${fmt(distance)} from ${fmt(edge)}; if it stays there, about ` +
    `${need} paired repeats (has ${interval.n}) would narrow the interval past the margin`
  );
}

export function notTestedAtThisScale(
  declaration: Declaration,
  ours: string,
  outside: string,
  howToTest: string,
): ClaimCheck {
  return {
    ...declaration,
    ours,
    verdict: "not tested at this scale",
    decidedBy: `${outside}; ${howToTest}`,
    why: "",
  };
}

export function missing(declaration: Declaration, needs: string): ClaimCheck {
  return { ...declaration, ours: "no data", verdict: "inconclusive", decidedBy: needs, why: "" };
}

export function claimRows(claims: readonly ClaimCheck[]): Record<string, string>[] {
  return claims.map((c) => ({
    claim: `${c.id}. ${c.claim}`,
    kind: kindText(c),
    seed: c.seed,
    regime: c.regime,
    statistic: c.statistic,
    rule: c.rule,
    "this run": c.ours,
    verdict: verdictText(c),
    "decided by": c.decidedBy + (c.sensitivity ? ` ${c.sensitivity}` : ""),
    why: c.why,
  }));
}

export function verdictSummary(claims: readonly ClaimCheck[]): string {
  const counts = new Map<Verdict, number>();
  for (const c of claims) counts.set(c.verdict, (counts.get(c.verdict) ?? 0) + 1);
  return VERDICTS.filter((v) => counts.has(v))
    .map((v) => `${counts.get(v)} ${v}`)
    .join(", ");
}

export interface Flagged {
  readonly noun: string;
  readonly count: number;
  readonly detail: string;
  readonly none: string;
}

export function sensitivitySentence(flagged: Flagged, verdict: Verdict, again: () => Decision | undefined): string {
  if (flagged.count === 0) return flagged.none;
  const what =
    `Without the ${flagged.count} flagged ${flagged.noun}(s)` + (flagged.detail ? ` (${flagged.detail})` : "");
  const without = again();
  if (!without) return `${what} no ${flagged.noun} is left to judge on.`;
  return without.verdict === verdict
    ? `${what}: the same verdict.`
    : `${what}: "${without.verdict}" instead — ${without.decidedBy}.`;
}

export function withSensitivity(
  claims: readonly ClaimCheck[],
  without: readonly ClaimCheck[],
  flagged: number,
): ClaimCheck[] {
  const units: Flagged = {
    noun: "trial",
    count: flagged,
    detail: "outliers, or a checkpoint/autovacuum in the timed window",
    none: "No trial was flagged (outlier, checkpoint or autovacuum in its window).",
  };
  return claims.map((c) => ({
    ...c,
    sensitivity: sensitivitySentence(units, c.verdict, () => without.find((w) => w.id === c.id)),
  }));
}

/** all held → held; any did not hold → did not hold. */
export function allOf(parts: readonly Decision[]): Verdict {
  if (parts.length && parts.every((p) => p.verdict === "held")) return "held";
  if (parts.some((p) => p.verdict === "did not hold")) return "did not hold";
  return "inconclusive";
}

// Kinds and regimes

const num = (x: number) =>
  !Number.isFinite(x)
    ? "any"
    : Math.abs(x) >= 1000
      ? Math.round(x).toLocaleString("en-US")
      : Math.abs(x) >= 10
        ? x.toFixed(0)
        : Math.abs(x) >= 1
          ? x.toFixed(1).replace(/\.0$/, "")
          : x.toPrecision(2);
const withUnit = (x: number, unit: string) => (unit ? `${num(x)} ${unit}` : num(x));
const share = (x: number) =>
  x >= 0.995 && x <= 1.005 ? "100 %" : x < 0.1 ? `${(x * 100).toPrecision(1)} %` : `${Math.round(x * 100)} %`;

export function factorText(f: RegimeFactor): string {
  return `${f.what} ${factorRange(f)} (${f.source ?? "the seed's"} ${withUnit(f.seed, f.unit)})`;
}

function factorRange(f: RegimeFactor): string {
  const [lo, hi] = f.within;
  return hi === Infinity
    ? `≥ ${withUnit(f.seed * lo, f.unit)}`
    : lo <= 0
      ? `≤ ${withUnit(f.seed * hi, f.unit)}`
      : lo === hi
        ? `= ${withUnit(f.seed * lo, f.unit)}`
        : `${num(f.seed * lo)}–${withUnit(f.seed * hi, f.unit)}`;
}

export function kindText(d: Declaration): string {
  switch (d.kind) {
    case "magnitude":
    case "equivalence":
      return d.distance?.length
        ? `${d.kind}: decided only at ${d.distance.map(factorText).join(", ")}`
        : `${d.kind}: decided only in the seed's regime`;
    case "direction":
      return d.signSetBy
        ? `direction: decided only at ${(d.distance ?? []).map(factorText).join(", ")}, because its sign is set by ${d.signSetBy}`
        : `direction: decided at any scale, because ${d.mechanism ?? "(no mechanism declared)"}`;
    case "mechanism":
      return `the lab's check of the mechanism (not a seed's figure): decided at any scale, because ${d.mechanism ?? "(no mechanism declared)"}`;
    case "derived":
      return `derived from ${d.derivedFrom ?? "another claim"}: shown, never counted as evidence`;
  }
}

export interface ScalePosition {
  readonly inside: boolean;
  readonly text: string;
  readonly outside: readonly string[];
  readonly brief: readonly string[];
}

export function scalePosition(
  distance: readonly RegimeFactor[] | undefined,
  here: Readonly<Record<string, number | undefined>>,
): ScalePosition {
  const parts: string[] = [];
  const outside: string[] = [];
  const brief: string[] = [];
  for (const f of distance ?? []) {
    const x = here[f.what];
    if (x === undefined || !Number.isFinite(x)) {
      parts.push(`${f.what} not measured`);
      outside.push(`${f.what} not measured (needs ${factorText(f)})`);
      brief.push(`${f.what} not known (needs ${factorRange(f)})`);
      continue;
    }
    const r = f.seed ? x / f.seed : NaN;
    const text =
      f.unit === "rows" || f.unit === "products" || f.unit === "rows per code"
        ? `${share(r)} of ${f.source ?? "the seed's"} ${f.what} (${withUnit(x, f.unit)})`
        : `${f.what} ${withUnit(x, f.unit)} (${f.source ?? "the seed's"} ${withUnit(f.seed, f.unit)})`;
    parts.push(text);
    if (!(r >= f.within[0] && r <= f.within[1])) {
      outside.push(`${text}, outside ${factorText(f)}`);
      brief.push(`${f.what} ${withUnit(x, f.unit)} (needs ${factorRange(f)})`);
    }
  }
  return { inside: outside.length === 0, text: parts.join(", "), outside, brief };
}

// What a profile can decide, before it runs

export type ClaimProspect = "decidable" | "out of regime" | "unavailable" | "not evidence";

export interface ClaimPlan {
  readonly id: string;
  readonly claim: string;
  readonly prospect: ClaimProspect;
  readonly reason: string;
  readonly dependsOn?: string;
}

export interface PlanOptions {
  readonly unavailable?: Readonly<Record<string, string>>;
  readonly emulated?: Readonly<Record<string, string>>;
}

export function planClaims(
  declarations: readonly Declaration[],
  planned: Readonly<Record<string, number | undefined>>,
  options: PlanOptions = {},
): ClaimPlan[] {
  return declarations.map((d) => {
    const base = { id: d.id, claim: d.claim };
    const unavailable = options.unavailable?.[d.id];
    if (unavailable) return { ...base, prospect: "unavailable", reason: unavailable };
    if (d.kind === "derived")
      return { ...base, prospect: "not evidence", reason: `derived from ${d.derivedFrom ?? "another claim"}` };
    const emulated = options.emulated?.[d.id];
    if (emulated) return { ...base, prospect: "not evidence", reason: emulated };
    if (!gatedByScale(d)) {
      // A condition of the run (the machine's load) is known only after it.
      const conditions = (d.distance ?? []).filter((f) => f.condition);
      return {
        ...base,
        prospect: "decidable",
        reason: "",
        ...(conditions.length ? { dependsOn: conditions.map(factorText).join(", ") } : {}),
      };
    }
    const pos = scalePosition(d.distance, planned);
    return pos.inside
      ? { ...base, prospect: "decidable", reason: "" }
      : { ...base, prospect: "out of regime", reason: pos.brief.join(", ") };
  });
}

/** e.g. "can decide 3 of 4 claims on this machine; not: (2) …". */
export function planText(plans: readonly ClaimPlan[]): string {
  const counted = plans.filter((p) => p.prospect === "decidable" || p.prospect === "out of regime");
  const can = counted.filter((p) => p.prospect === "decidable");
  const not = counted.filter((p) => p.prospect === "out of regime");
  const apart = plans.filter((p) => p.prospect === "unavailable" || p.prospect === "not evidence");
  const depends = can.filter((p) => p.dependsOn);
  return (
    `this profile on this machine can decide ${can.length} of ${counted.length} claims` +
    (depends.length ? ` (${depends.map((p) => `(${p.id}) if ${p.dependsOn}`).join("; ")})` : "") +
    (not.length ? `; not: ${not.map((p) => `(${p.id}) ${p.reason}`).join("; ")}` : "") +
    (apart.length ? `; not counted: ${sameReasonOnce(apart)}` : "")
  );
}

function sameReasonOnce(plans: readonly ClaimPlan[]): string {
  const groups = new Map<string, string[]>();
  for (const p of plans) {
    const why = `${p.prospect}: ${p.reason}`;
    groups.set(why, [...(groups.get(why) ?? []), `(${p.id})`]);
  }
  return [...groups].map(([why, ids]) => `${ids.join(", ")} ${why}`).join("; ");
}

export function derived(declaration: Declaration, ours: string, arithmetic: string, interval?: Interval): ClaimCheck {
  return {
    ...declaration,
    ours,
    interval,
    verdict: "derived",
    arithmetic,
    decidedBy: `derived from ${declaration.derivedFrom ?? "another claim"}: ${arithmetic}; not counted as evidence`,
    why: "",
  };
}

export function verdictText(c: ClaimCheck): string {
  if (
    (c.kind === "direction" || c.kind === "mechanism") &&
    c.scale &&
    (c.verdict === "held" || c.verdict === "did not hold")
  )
    return `${c.verdict} at ${c.scale}`;
  return c.verdict;
}

export const isEvidence = (c: Pick<ClaimCheck, "verdict">) => c.verdict !== "derived" && c.verdict !== "emulated";

// A union of step refutations

/** The one-sided sign test's p-value. */
export function signTestP(n: number, m: number): number {
  let c = 1;
  let sum = 0;
  for (let i = 0; i <= n; i++) {
    if (i > 0) c = (c * (n - i + 1)) / i;
    if (i >= m) sum += c;
  }
  return sum / 2 ** n;
}

/** Refuted when any of k steps fails, so Holm's step-down correction keeps any false refutation ≤ FAMILY_ALPHA. */
export const FAMILY_ALPHA = Math.round(((1 - MIN_COVERAGE) / 2) * 1e6) / 1e6;

export interface StepTest {
  readonly label: string;
  readonly values: readonly number[];
}

export function holmRefutations(
  steps: readonly StepTest[],
  rule: Extract<Rule, { kind: "above" | "below" }>,
  alpha = FAMILY_ALPHA,
): { label: string; p: number; threshold: number }[] {
  const ps = steps.map((s) => {
    const against = s.values.filter((v) => (rule.kind === "below" ? v >= rule.margin : v <= rule.margin)).length;
    return { label: s.label, p: s.values.length ? signTestP(s.values.length, against) : 1 };
  });
  const sorted = [...ps].sort((a, b) => a.p - b.p);
  const out: { label: string; p: number; threshold: number }[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const threshold = alpha / (sorted.length - i);
    if (sorted[i].p > threshold) break;
    out.push({ ...sorted[i], threshold });
  }
  return out;
}
