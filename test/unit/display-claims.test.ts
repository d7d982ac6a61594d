import { test } from "node:test";
import assert from "node:assert/strict";
import { claimAnchor, claimsTableHtml, statisticText, verdictSummaryHtml } from "../../lib/display/claims";
import type { ClaimCheck } from "../../lib/stats/claims";

const declaration = {
  seed: "2.61× at 1M rows",
  regime: "1M rows, 5 trials",
  statistic: "seconds 5 idx ÷ 0 idx, paired per repeat",
  rule: "held if the whole interval is above 1.5",
  kind: "direction" as const,
};

const held: ClaimCheck = {
  id: "a (postgresql)",
  claim: "INSERT costs more with 5 indexes",
  ...declaration,
  ours: "2.40× [2.10×–2.70×]; server time 2.2×",
  interval: { estimate: 2.4, low: 2.1, high: 2.7, n: 5, coverage: 0.9375, of: "INSERT 5 ÷ 0 idx", rank: 1 },
  verdict: "held",
  decidedBy: "2.40 [2.10–2.70]: wholly above 1.50",
  why: "one index entry per row per index",
};

const notTested: ClaimCheck = {
  id: "b",
  claim: "Small tables underestimate the ratio at 1M rows",
  ...declaration,
  ours: "INSERT 2,000: 1.38×; UPDATE 2,000: 1.80×",
  verdict: "not tested at this scale",
  decidedBy: "largest size 2,000 rows; --profile full tests it",
  why: "",
};

test("the verdict summary has one line per claim: its words, verdict, interval and a link to its row", () => {
  const html = verdictSummaryHtml([held, notTested]);
  const lines = html.match(/<li class="dblab-verdict-line"[^]*?<\/li>/g) ?? [];
  assert.equal(lines.length, 2);
  assert.match(lines[0], /data-verdict="held"/);
  assert.match(lines[0], /INSERT costs more with 5 indexes/);
  assert.match(lines[0], /INSERT 5 ÷ 0 idx: 2\.40 \[2\.10–2\.70, 93\.8 % CI/);
  assert.match(lines[0], new RegExp(`href="#${claimAnchor(held.id)}"`));
  // No interval: the first part of this run's figures stands for the statistic.
  assert.match(lines[1], /not tested at this scale/);
  assert.match(lines[1], /INSERT 2,000: 1\.38×/);
  assert.doesNotMatch(lines[1], /UPDATE 2,000/);
  assert.match(lines[1], /\(--profile full tests it\)/, "what would test it");
  assert.doesNotMatch(lines[0], /tests it/);
  assert.match(html, /1 held, 1 not tested at this scale/);
});

test("every summary link lands on a row of the claims table", () => {
  const claims = [held, notTested];
  const table = claimsTableHtml(claims);
  for (const href of verdictSummaryHtml(claims).match(/href="#([^"]+)"/g) ?? []) {
    const id = href.slice(7, -1);
    assert.match(table, new RegExp(`<tr id="${id}"`), id);
  }
  assert.notEqual(claimAnchor("c (postgresql)"), claimAnchor("c (mongodb)"));
});

test("the claims table keeps the declaration apart from the outcome", () => {
  const table = claimsTableHtml([held]);
  const [outcome, declared] = table.split('<tr class="dblab-claim-declaration">');
  assert.match(outcome, /<th[^>]*>verdict<\/th><th[^>]*>this run<\/th><th[^>]*>decided by<\/th><th[^>]*>why<\/th>/);
  assert.doesNotMatch(outcome, /<th[^>]*>regime<\/th>/);
  assert.match(declared, /regime:<\/span> 1M rows, 5 trials/);
  assert.match(declared, /rule:<\/span> held if the whole interval is above 1\.5/);
  // claim, kind, verdict, this run, decided by, why: the declaration spans them all.
  assert.match(declared, /colspan="6"/);
});

test("extra string fields are shown without being required: short ones as columns, long ones declared", () => {
  const withExtras = {
    ...held,
    kind: "magnitude",
    mechanism: "every non-HOT update inserts one entry into every index of the table, changed or not",
    regimeDistance: 0.5,
    nested: { ignored: true },
  } as ClaimCheck;
  const table = claimsTableHtml([withExtras, notTested]);
  assert.match(table, /<th[^>]*>kind<\/th>/);
  assert.match(table, /<th[^>]*>regime distance<\/th>/);
  assert.match(table, /<td[^>]*>magnitude<\/td>/);
  assert.doesNotMatch(table, /<th[^>]*>mechanism<\/th>/);
  assert.match(table, /mechanism:<\/span> every non-HOT update/);
  assert.doesNotMatch(table, /ignored/);
  assert.match(verdictSummaryHtml([withExtras]), /\[kind: magnitude\]/);
  // Without extras there is no extra column beyond the claim's kind, which every declaration has.
  assert.doesNotMatch(claimsTableHtml([held]), /<th[^>]*>regime distance<\/th>/);
});

test("claim texts are escaped and a run without claims says so", () => {
  const evil = { ...held, id: "x", claim: "<img src=x>" };
  assert.doesNotMatch(verdictSummaryHtml([evil]) + claimsTableHtml([evil]), /<img/);
  assert.match(verdictSummaryHtml([]), /no claim/);
  assert.equal(statisticText({ ...notTested, ours: "x".repeat(300) }).length, 120);
});
