/** The decision table's line: "keep" needs a script that scanned the index and ran slower without it. */
import { MIN_COVERAGE } from "../../stats/claims";
import type { Interval } from "../../stats/intervals";
import { minusFixed as fixed } from "../../stats/format";

export interface ReadEffect {
  readonly script: string;
  /** Latency without ÷ latency with: 14 = 14× slower without it. */
  readonly slowdown?: Interval;
  readonly latencyMs: { readonly with?: number; readonly without?: number };
  readonly scansPerRun: number;
  readonly runsWith: number;
}

type DecisionKind = "keep" | "nothing reads it" | "read, not slower without" | "reads not measured";

/** A fraction as a percentage at one decimal, no unit: "4.2". */
export const pc = (x: number) => fixed(x * 100, 1);
const times = (x: number) => fixed(x, x >= 10 ? 0 : x >= 2 ? 1 : 2);
const thin = (i: Interval) => (i.coverage < MIN_COVERAGE ? `, the range of ${i.n} rounds` : "");

export const costText = (c: Interval): string => `${pc(c.estimate)} % [${pc(c.low)}–${pc(c.high)} %${thin(c)}]`;
export const slowdownText = (i: Interval, said = ""): string =>
  `${times(i.estimate)}×${said} [${times(i.low)}–${times(i.high)}${thin(i)}]`;

/** `adds`: a candidate, so "adding it would cost", not "dropping it saves". */
export function decide(
  ix: { readonly cost?: Interval; readonly reads: readonly ReadEffect[]; readonly adds: boolean },
  scripts: readonly string[],
) {
  // A saving is said only when the cost's interval lies wholly above 0.
  const write = !ix.cost
    ? "its write cost was not measured (no paired rounds)"
    : ix.cost.low > 0
      ? `${ix.adds ? "adding it would cost" : "dropping it saves"} ${costText(ix.cost)} of write throughput`
      : `its write cost is not measurably above 0: ${costText(ix.cost)} of write throughput`;
  const measured = ix.reads.filter((r) => r.runsWith > 0);
  const readBy = measured.filter((r) => r.scansPerRun > 0);
  const names = (rs: readonly ReadEffect[]) => rs.map((r) => r.script);
  const line = (kind: DecisionKind, text: string, slower: readonly ReadEffect[] = []) => ({
    kind,
    text,
    readBy: kind === "reads not measured" ? [] : names(readBy),
    slowerWithout: names(slower),
  });
  if (scripts.length === 0 || measured.length === 0) {
    const why = scripts.length === 0 ? "no read script given (reads)" : "no read run gave figures";
    return line("reads not measured", `${why}: what it buys your reads is not measured; ${write}`);
  }
  const slower = readBy
    .filter((r) => r.slowdown !== undefined && r.slowdown.low > 1)
    .sort((a, b) => (b.slowdown?.estimate ?? 0) - (a.slowdown?.estimate ?? 0));
  const text = (r: ReadEffect, said = "") => (r.slowdown ? slowdownText(r.slowdown, said) : "not paired");
  if (slower.length) {
    const [first, ...rest] = slower;
    const others = rest.map((r) => `; ${r.script} ${text(r)}`).join("");
    return line(
      "keep",
      `${ix.adds ? "add" : "keep"}: ${first.script} runs ${text(first, " slower without it")}${others} (${write})`,
      slower,
    );
  }
  if (readBy.length === 0) {
    const unmeasured = ix.reads.length - measured.length;
    const gave = unmeasured ? ` (${unmeasured} of ${ix.reads.length} read scripts gave no figures)` : "";
    return line("nothing reads it", `nothing measured reads through it${gave}; ${write}`);
  }
  const figures = readBy.map((r) => `${r.script} ${text(r)} without it`).join("; ");
  const verb = readBy.length === 1 ? "reads" : "read";
  return line(
    "read, not slower without",
    `${names(readBy).join(", ")} ${verb} through it, but none is measured slower without it (${figures}); ${write}`,
  );
}
