/**
 * The decision table's plain line for one judged index or set: its write cost beside what its
 * absence did to each read script, both measured in this run. "keep" needs a script that scanned
 * the index where it exists and whose latency without it lies wholly above its latency with it
 * (paired per round); "nothing measured reads through it" needs every read script to have scanned
 * it zero times. A script that scanned it but is not measured slower without it (another index or
 * plan served it as well, or the interval straddles 1) is said as that, with its figures.
 */
import { MIN_COVERAGE } from "../../stats/claims";
import type { Interval } from "../../stats/intervals";
import { minusFixed } from "../../stats/format";

/**
 * What a judged index's absence does to one read script: its latency without ÷ with, paired per
 * round as the write cost is (the variant's read run against the baseline's around it), and how
 * often the script scanned the index (its members, for a set) where it exists.
 */
export interface ReadEffect {
  readonly script: string;
  /** Latency without ÷ latency with, per round, median and exact interval: 14 = 14× slower without it. */
  readonly slowdown?: Interval;
  /** Median latency, ms, over the runs with and without it. */
  readonly latencyMs: { readonly with?: number; readonly without?: number };
  /** idx_scan of the index (a set's: of all its members) per read run where it exists, mean over those runs. */
  readonly scansPerRun: number;
  /** Read runs counted on the side that has the index. */
  readonly runsWith: number;
}

export const DECISIONS = ["keep", "nothing reads it", "read, not slower without", "reads not measured"] as const;
export type DecisionKind = (typeof DECISIONS)[number];

export interface Decision {
  readonly kind: DecisionKind;
  /** The line the table shows. */
  readonly text: string;
  /** Scripts that scanned the index where it exists. */
  readonly readBy: readonly string[];
  /** Of those, the ones measured slower without it (interval wholly above 1). */
  readonly slowerWithout: readonly string[];
}

const fixed = minusFixed;
const pc = (x: number) => fixed(x * 100, 1);
/** A slowdown factor: 14, 2.3, 1.04. */
const times = (x: number) => fixed(x, x >= 10 ? 0 : x >= 2 ? 1 : 2);

/** "8.0 % [5.0–31.4 %]" (with the interval's kind when it covers the median less than a claim needs). */
export function costText(c: Interval): string {
  return `${pc(c.estimate)} % [${pc(c.low)}–${pc(c.high)} %${thin(c)}]`;
}

/** "14× [12–16]". */
export function slowdownText(i: Interval): string {
  return `${times(i.estimate)}× [${times(i.low)}–${times(i.high)}${thin(i)}]`;
}

function thin(i: Interval): string {
  return i.coverage < MIN_COVERAGE ? `, the range of ${i.n} rounds` : "";
}

/**
 * The line for one row. `adds`: the row judges adding indexes (candidates), so "adding it would
 * cost" rather than "dropping it saves". `scripts`: the run's read scripts ([] without `reads`).
 */
export function decide(
  ix: { readonly cost?: Interval; readonly reads: readonly ReadEffect[]; readonly adds: boolean },
  scripts: readonly string[],
): Decision {
  // A saving is said only when the cost's interval lies wholly above 0; else what was measured, as such.
  const write = !ix.cost
    ? "its write cost was not measured (no paired rounds)"
    : ix.cost.low > 0
      ? ix.adds
        ? `adding it would cost ${costText(ix.cost)} of write throughput`
        : `dropping it saves ${costText(ix.cost)} of write throughput`
      : `its write cost is not measurably above 0: ${costText(ix.cost)} of write throughput`;
  const measured = ix.reads.filter((r) => r.runsWith > 0);
  if (scripts.length === 0 || measured.length === 0)
    return {
      kind: "reads not measured",
      text: `${scripts.length === 0 ? "no read script given (reads)" : "no read run gave figures"}: what it buys your reads is not measured; ${write}`,
      readBy: [],
      slowerWithout: [],
    };
  const readBy = measured.filter((r) => r.scansPerRun > 0);
  const slower = readBy
    .filter((r) => r.slowdown !== undefined && r.slowdown.low > 1)
    .sort((a, b) => (b.slowdown?.estimate ?? 0) - (a.slowdown?.estimate ?? 0));
  const names = (rs: readonly ReadEffect[]) => rs.map((r) => r.script);
  if (slower.length) {
    const [first, ...rest] = slower;
    const others = rest.map((r) => `; ${r.script} ${slowdownText(r.slowdown as Interval)}`).join("");
    return {
      kind: "keep",
      text:
        `${ix.adds ? "add" : "keep"}: ${first.script} runs ${times((first.slowdown as Interval).estimate)}× slower without it ` +
        `[${times((first.slowdown as Interval).low)}–${times((first.slowdown as Interval).high)}${thin(first.slowdown as Interval)}]` +
        `${others} (${write})`,
      readBy: names(readBy),
      slowerWithout: names(slower),
    };
  }
  if (readBy.length === 0) {
    const unmeasured = ix.reads.length - measured.length;
    return {
      kind: "nothing reads it",
      text: `nothing measured reads through it${unmeasured ? ` (${unmeasured} of ${ix.reads.length} read scripts gave no figures)` : ""}; ${write}`,
      readBy: [],
      slowerWithout: [],
    };
  }
  const figures = readBy
    .map((r) => `${r.script} ${r.slowdown ? slowdownText(r.slowdown) : "not paired"} without it`)
    .join("; ");
  return {
    kind: "read, not slower without",
    text:
      `${names(readBy).join(", ")} ${readBy.length === 1 ? "reads" : "read"} through it, but none is measured slower without it ` +
      `(${figures}); ${write}`,
    readBy: names(readBy),
    slowerWithout: [],
  };
}
