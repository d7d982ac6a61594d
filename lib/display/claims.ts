/**
 * The seed's claims in a report: the verdict summary under the run header (one line per claim, a link
 * down) and the full table, one outcome row per claim with its declaration folded under it. Fields
 * beyond `ClaimCheck` are shown too: short ones as columns, long ones in the declaration.
 */
import type { ClaimCheck, Verdict } from "../stats/claims";
import { intervalText } from "../stats/intervals";
import { notDeclaredLines, type NotDeclared } from "../stats/claim-engine";
import { escapeHtml, show } from "./output";

/** ClaimCheck's own fields; anything else is an extra. */
const KNOWN = new Set([
  "id",
  "claim",
  "seed",
  "regime",
  "statistic",
  "rule",
  "ours",
  "interval",
  "verdict",
  "decidedBy",
  "why",
  "sensitivity",
]);

/** An extra whose every value is at most this long is a column. */
const SHORT_EXTRA = 40;

const VERDICT_STYLE: Readonly<Record<Verdict, string>> = {
  held: "background:#e3f4e6;color:#17702a",
  "did not hold": "background:#fbe4e6;color:#b00020",
  inconclusive: "background:#fff4d6;color:#7a5800",
  "not tested at this scale": "background:#eceff3;color:#44505c",
  emulated: "background:#e7eefb;color:#234a8c",
  derived: "background:#f3eafa;color:#5b2c83",
};

function verdictBadge(verdict: string): string {
  const style = VERDICT_STYLE[verdict as Verdict] ?? "background:#eee;color:#222";
  return `<span class="dblab-verdict" style="${style};padding:1px 6px;border-radius:3px;white-space:nowrap;font-weight:600">${escapeHtml(verdict)}</span>`;
}

/** Unique per notebook. */
export function claimAnchor(id: string): string {
  return `dblab-claim-${id.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "")}`;
}

function extras(claim: ClaimCheck): [string, string][] {
  return Object.entries(claim as unknown as Record<string, unknown>).flatMap(([key, value]): [string, string][] => {
    if (KNOWN.has(key)) return [];
    if (typeof value === "string") return value ? [[key, value]] : [];
    if (typeof value === "number" || typeof value === "boolean") return [[key, String(value)]];
    return [];
  });
}

/** "regimeDistance" → "regime distance". */
function label(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
}

const fmt = (x: number): string =>
  Math.abs(x) >= 100
    ? x.toFixed(0)
    : Math.abs(x) >= 10
      ? x.toFixed(1)
      : Math.abs(x) >= 0.1
        ? x.toFixed(2)
        : x.toPrecision(2);

/** The number behind a verdict: the interval when the rule read one, else this run's first figure. */
export function statisticText(claim: ClaimCheck): string {
  if (claim.interval) {
    const of = claim.interval.of ? `${claim.interval.of}: ` : "";
    return `${of}${intervalText(claim.interval, fmt)}`;
  }
  const first = claim.ours.split(";")[0].trim();
  return first.length > 120 ? `${first.slice(0, 119)}…` : first;
}

/** For a claim outside its regime, what would test it: its reason's last clause, when short. */
export function howToTest(claim: ClaimCheck): string {
  if (claim.verdict !== "not tested at this scale") return "";
  const at = claim.decidedBy.lastIndexOf("; ");
  const tail = at >= 0 ? claim.decidedBy.slice(at + 2).trim() : "";
  return tail && tail.length <= 100 ? tail : "";
}

/** e.g. "2 held, 1 inconclusive". */
export function verdictCounts(claims: readonly { readonly verdict: string }[]): string {
  const counts = new Map<string, number>();
  for (const c of claims) counts.set(c.verdict, (counts.get(c.verdict) ?? 0) + 1);
  return Object.keys(VERDICT_STYLE)
    .filter((v) => counts.has(v))
    .concat([...counts.keys()].filter((v) => !(v in VERDICT_STYLE)))
    .map((v) => `${counts.get(v)} ${v}`)
    .join(", ");
}

export function verdictSummaryHtml(claims: readonly ClaimCheck[]): string {
  if (!claims.length) return `<div class="dblab-verdicts"><b>Verdicts:</b> this run judged no claim.</div>`;
  const lines = claims
    .map((c) => {
      const tags = extras(c)
        .filter(([, v]) => v.length <= SHORT_EXTRA)
        .map(([k, v]) => ` <span style="color:#666;font-size:90%">[${escapeHtml(label(k))}: ${escapeHtml(v)}]</span>`)
        .join("");
      return (
        `<li class="dblab-verdict-line" data-claim="${escapeHtml(c.id)}" data-verdict="${escapeHtml(c.verdict)}">` +
        `${verdictBadge(c.verdict)} <b>${escapeHtml(c.id)}.</b> ${escapeHtml(c.claim)}${tags}` +
        ` — <span style="color:#333">${escapeHtml(statisticText(c))}</span>` +
        (howToTest(c) ? ` <span style="color:#666">(${escapeHtml(howToTest(c))})</span>` : "") +
        ` <a href="#${claimAnchor(c.id)}">declaration ↓</a></li>`
      );
    })
    .join("");
  return (
    `<div class="dblab-verdicts" style="border-left:4px solid #4c78a8;padding:4px 12px;margin:8px 0;background:#f7f9fc">` +
    `<b>Verdicts on this run</b> (${escapeHtml(verdictCounts(claims))}): each claim's statistic with its interval; ` +
    `its declaration (regime, statistic, rule) and the reason for the verdict are in the claims table below.` +
    `<ul style="list-style:none;padding-left:0;margin:6px 0">${lines}</ul></div>`
  );
}

export function showVerdictSummary(claims: readonly ClaimCheck[]): void {
  show().html(verdictSummaryHtml(claims));
}

const cellStyle = "border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top";

/** The full claims table: per claim an outcome row and its declaration under it, with the summary's anchor. */
export function claimsTableHtml(claims: readonly ClaimCheck[], caption = "The seed's claims on this machine"): string {
  const extraKeys = [...new Set(claims.flatMap((c) => extras(c).map(([k]) => k)))];
  const shortKeys = extraKeys.filter((k) =>
    claims.every((c) => (extras(c).find(([key]) => key === k)?.[1] ?? "").length <= SHORT_EXTRA),
  );
  const longKeys = extraKeys.filter((k) => !shortKeys.includes(k));
  const head = ["claim", ...shortKeys.map(label), "verdict", "this run", "decided by", "why"]
    .map((h) => `<th style="${cellStyle};background:#f3f3f3">${escapeHtml(h)}</th>`)
    .join("");
  const span = 5 + shortKeys.length;
  const rows = claims
    .map((c) => {
      const extra = new Map(extras(c));
      const outcome = [
        `<td style="${cellStyle}"><b>${escapeHtml(c.id)}.</b> ${escapeHtml(c.claim)}</td>`,
        ...shortKeys.map((k) => `<td style="${cellStyle}">${escapeHtml(extra.get(k) ?? "")}</td>`),
        `<td style="${cellStyle}">${verdictBadge(c.verdict)}</td>`,
        `<td style="${cellStyle}">${escapeHtml(c.ours)}</td>`,
        `<td style="${cellStyle}">${escapeHtml(c.decidedBy)}` +
          (c.sensitivity ? `<div style="color:#555;margin-top:3px">${escapeHtml(c.sensitivity)}</div>` : "") +
          `</td>`,
        `<td style="${cellStyle}">${escapeHtml(c.why)}</td>`,
      ].join("");
      const declared: [string, string][] = [
        ["seed", c.seed],
        ["regime", c.regime],
        ["statistic", c.statistic],
        ["rule", c.rule],
        ...longKeys.flatMap((k): [string, string][] => (extra.has(k) ? [[label(k), extra.get(k) ?? ""]] : [])),
      ];
      const declaration = declared
        .filter(([, v]) => v)
        .map(([k, v]) => `<div><span style="color:#666">${escapeHtml(k)}:</span> ${escapeHtml(v)}</div>`)
        .join("");
      return (
        `<tr id="${claimAnchor(c.id)}" class="dblab-claim" data-verdict="${escapeHtml(c.verdict)}">${outcome}</tr>` +
        `<tr class="dblab-claim-declaration"><td colspan="${span}" style="${cellStyle};font-size:90%;background:#fafafa;border-bottom:2px solid #bbb">` +
        `<span style="font-weight:600;color:#555">declared before the run</span>${declaration}</td></tr>`
      );
    })
    .join("\n");
  return (
    `<table class="dblab-table dblab-claims" style="border-collapse:collapse">` +
    `<caption style="caption-side:top;text-align:left;font-weight:bold">${escapeHtml(caption)} (${escapeHtml(verdictCounts(claims))})</caption>` +
    `<thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`
  );
}

export function showClaimsTable(claims: readonly ClaimCheck[], caption?: string): void {
  show().html(claimsTableHtml(claims, caption));
}

/** The claims table, then the seed's sentences that no claim declares, each with the reason. */
export function showClaimsAndUndeclared(
  claims: readonly ClaimCheck[],
  set: { readonly notDeclared: readonly NotDeclared[] },
  caption?: string,
): void {
  showClaimsTable(claims, caption);
  const lines = notDeclaredLines(set);
  if (lines.length)
    show().html(
      `<p><b>The seed's sentences not declared as claims</b></p><ul>` +
        lines.map((l) => `<li>${escapeHtml(l)}</li>`).join("") +
        `</ul>`,
    );
}
