/** A comparison as a terminal table, Markdown or JSON, with the same sections in the same order. */
import { isCompared, type Comparison, type ConditionRow, type PairComparison } from "./compare";

/** Three significant digits, as display/table's formatNumber; kept apart so the CLI does not load display/. */
function num(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return x.toLocaleString("en-US");
  return Math.abs(x) >= 1000 ? Math.round(x).toLocaleString("en-US") : x.toPrecision(3);
}
const pct = (x: number): string => `${Math.round(x * 100)} %`;

function sideText(s: ConditionRow["a"]): string {
  if (!s) return "—";
  return s.n === 1 ? `${num(s.median)} (n=1)` : `${num(s.median)} [${num(s.low)}–${num(s.high)}]`;
}

/** "+4.1 % [−2.0 %, +9.8 %]" */
function changeText(r: ConditionRow): string {
  if (!r.change) return "";
  const sign = (x: number) => {
    const v = (x - 1) * 100;
    const s = Math.abs(v) < 0.05 ? "0.0" : Math.abs(v).toFixed(1);
    return `${v > 0.05 ? "+" : v < -0.05 ? "−" : ""}${s} %`;
  };
  return `${sign(r.change.ratio)} [${sign(r.change.ciLow)}, ${sign(r.change.ciHigh)}]`;
}

/** benchstat's column: "~" when not distinguishable from noise, else the p-value. */
function markText(r: ConditionRow): string {
  if (!r.change) return "";
  const p = `p=${r.change.test.p.toFixed(3)}`;
  if (!r.change.distinguishable) return `~ (${p})`;
  return `${r.regression ? "REGRESSION " : ""}${p}`;
}

function conditionRows(pair: PairComparison): string[][] {
  return pair.rows
    .filter(isCompared)
    .map((r) => [r.label, sideText(r.a), sideText(r.b), `${r.a.n} / ${r.b.n}`, changeText(r), markText(r)]);
}

function onlyRows(pair: PairComparison): string[][] {
  return pair.rows
    .filter((r) => !r.change)
    .map((r) => [
      r.label,
      r.only === "A" ? `only in ${pair.a.label}` : r.only === "B" ? `only in ${pair.b.label}` : "no values",
      sideText(r.a ?? r.b),
    ]);
}

function verdictRows(pair: PairComparison, whyLength = Infinity): string[][] {
  const cut = (s: string) => ([...s].length > whyLength ? `${[...s].slice(0, whyLength - 1).join("")}…` : s);
  return (pair.verdicts ?? []).map((v) => [
    v.id,
    v.a ?? "—",
    v.b ?? "—",
    v.changed ? "changed" : "",
    v.changed ? cut(v.whyB ?? v.whyA ?? "") : "",
  ]);
}

export function footnotes(c: Comparison, pair: PairComparison): string[] {
  const { a, b } = { a: pair.a.label, b: pair.b.label };
  const chance = (pair.common * c.alpha).toFixed(1);
  const notes = [
    "Medians with their distribution-free interval (min–max when n < 6: covers the median with probability " +
      `${pct(coverageOf(pair))} at these sample sizes). Change = median(${b}) / median(${a}) − 1, ` +
      `interval [low(${b})/high(${a}), high(${b})/low(${a})] from the two medians' intervals, which covers the ratio with at least ` +
      `the product of their coverages (${pct(coverageOf(pair) ** 2)} here): wide with few trials, and labelled so.`,
    'Test: exact two-sided Mann–Whitney U on the trial values; "~" = not distinguishable from noise at ' +
      `α = ${c.alpha}. If nothing changed, about ${chance} of these ${pair.common} conditions ` +
      "would be flagged by chance.",
  ];
  if (pair.minPossibleP > c.alpha) {
    notes.push(
      `With this few trials per condition the smallest possible p is ${pair.minPossibleP.toFixed(2)} > α: ` +
        "no change can be told from noise. Run more repeats (the `default` profile has 3).",
    );
  }
  if (c.regressionThreshold !== undefined) {
    notes.push(
      `Regression gate: ${pair.regressions} condition(s) worse by more than ${pct(c.regressionThreshold)} ` +
        "and distinguishable from noise.",
    );
  }
  return notes;
}

function coverageOf(pair: PairComparison): number {
  const sides = pair.rows.flatMap((r) => [r.a, r.b]).filter((s): s is NonNullable<typeof s> => s !== undefined);
  return sides.length ? Math.min(...sides.map((s) => s.coverage)) : 0;
}

function runLine(r: Comparison["runs"][number]): string[] {
  return [
    r.label,
    r.id,
    r.profile,
    r.target,
    r.commit,
    r.startedAt,
    `${r.trialsOk} ok / ${r.trialsFailed} failed`,
    r.state,
  ];
}

const RUN_HEAD = ["", "run", "profile", "target", "commit", "started", "trials", "state"];

// Terminal

/** Padded to the widest cell in code points. */
export function textTable(head: readonly string[], rows: readonly (readonly string[])[], indent = "  "): string {
  const len = (s: string) => [...s].length;
  const widths = head.map((h, i) => Math.max(len(h), ...rows.map((r) => len(r[i] ?? ""))));
  const line = (cells: readonly string[]) =>
    indent +
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + " ".repeat(widths[i] - len(c))))
      .join("  ")
      .trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

export function formatText(c: Comparison): string {
  const out: string[] = [];
  out.push(`Comparing runs of ${c.notebook} · metric: ${c.metric.describe}`);
  out.push(textTable(RUN_HEAD, c.runs.map(runLine)));
  for (const w of c.warnings) out.push(`! ${w}`);
  out.push("");
  out.push(`What differed (${c.identicalFields} other recorded fields are the same):`);
  out.push(
    c.config.length
      ? textTable(
          ["section", "field", ...c.runs.map((r) => r.label)],
          c.config.map((r) => [r.section, r.field, ...r.values]),
        )
      : "  nothing: same configuration, host, commit and parameters",
  );
  for (const pair of c.pairs) {
    out.push("");
    out.push(`${pair.b.label} vs ${pair.a.label}, per condition (${c.metric.unit}):`);
    const head = [
      "condition",
      `${pair.a.label} median [interval]`,
      `${pair.b.label} median [interval]`,
      "n",
      "change [interval]",
      "vs noise",
    ];
    out.push(textTable(head, conditionRows(pair)));
    const only = onlyRows(pair);
    if (only.length) out.push(textTable(["condition", "present", "median [interval]"], only));
    for (const n of footnotes(c, pair)) out.push(`  ${n}`);
    out.push("");
    out.push(`Claims' verdicts, ${pair.a.label} → ${pair.b.label}:`);
    if (pair.verdicts)
      out.push(textTable(["claim", pair.a.label, pair.b.label, "", "why (the later verdict)"], verdictRows(pair, 100)));
    if (pair.verdictsNote) out.push(`  ${pair.verdictsNote}`);
  }
  return out.join("\n");
}

// Markdown

const md = (s: string): string => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${head.map(md).join(" | ")} |`,
    `|${head.map(() => " --- ").join("|")}|`,
    ...rows.map((r) => `| ${r.map(md).join(" | ")} |`),
  ].join("\n");
}

export function formatMarkdown(c: Comparison): string {
  const out: string[] = [];
  out.push(`### Comparing runs of \`${c.notebook}\``, "", `Metric: ${c.metric.describe}.`, "");
  out.push(
    markdownTable(
      RUN_HEAD.map((h) => h || "·"),
      c.runs.map((r) => runLine(r).map((x, i) => (i === 1 ? `\`${x}\`` : x))),
    ),
  );
  if (c.warnings.length) out.push("", ...c.warnings.map((w) => `> ⚠ ${w}`));
  out.push("", `#### What differed`, "");
  out.push(
    c.config.length
      ? markdownTable(
          ["section", "field", ...c.runs.map((r) => r.label)],
          c.config.map((r) => [r.section, r.field, ...r.values]),
        )
      : "Nothing: same configuration, host, commit and parameters.",
  );
  out.push("", `${c.identicalFields} other recorded fields are the same.`);
  for (const pair of c.pairs) {
    out.push("", `#### ${pair.b.label} vs ${pair.a.label}, per condition (${c.metric.unit})`, "");
    const head = [
      "condition",
      `${pair.a.label} median [interval]`,
      `${pair.b.label} median [interval]`,
      "n",
      "change [interval]",
      "vs noise",
    ];
    out.push(markdownTable(head, conditionRows(pair)));
    const only = onlyRows(pair);
    if (only.length) out.push("", markdownTable(["condition", "present", "median [interval]"], only));
    out.push("", ...footnotes(c, pair).map((n) => `- ${n}`));
    out.push("", `#### Claims' verdicts, ${pair.a.label} → ${pair.b.label}`, "");
    if (pair.verdicts)
      out.push(markdownTable(["claim", pair.a.label, pair.b.label, "", "why (the later verdict)"], verdictRows(pair)));
    if (pair.verdictsNote) out.push("", pair.verdictsNote);
  }
  return out.join("\n");
}

// JSON

/** The whole comparison for a CI job, `regressions` at the top. */
export function formatJson(c: Comparison): string {
  const regressions = c.pairs.reduce((n, p) => n + p.regressions, 0);
  return JSON.stringify({ regressions, ...c }, null, 2);
}
