/**
 * The claims engine's generated margin tests: every claim every notebook declares on the engine
 * (found through the registry's `claimSet`) is taken through synthetic measurements to each verdict
 * its rule can give — just inside and just outside its margin or band, an interval straddling it,
 * too few repeats, each regime factor just inside and just outside its distance, nothing measured —
 * so a newly declared claim is tested without a hand-written test. The notebooks' own tests check
 * the statistics they compute from runs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { EXPERIMENTS } from "../../lib/experiments/registry";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  absentUnless,
  absentWhen,
  atLeast,
  atMost,
  declaration,
  decideClaim,
  declare,
  DeclarationError,
  exactly,
  factor,
  from,
  readQuotes,
  ruleBand,
  stat,
  textsFrom,
  versus,
  when,
  type AnyClaimSet,
  type ClaimCore,
  type Measured,
  type Position,
} from "../../lib/stats/claim-engine";
import { FAMILY_ALPHA, isEvidence, type RegimeFactor, type Rule, type Verdict } from "../../lib/stats/claims";
import type { Interval } from "../../lib/stats/intervals";
import { f0, f1, f2, f3, ms, ratio } from "../../lib/stats/format";

const SETS = EXPERIMENTS.flatMap((e) => (e.claimSet ? [{ id: e.id, set: e.claimSet, e }] : []));

/** An interval of 5 paired repeats (the range: 93.75 % coverage) or fewer. */
const iv = (low: number, high: number, n = 5): Interval => ({
  estimate: (low + high) / 2,
  low,
  high,
  n,
  coverage: 1 - 2 * 0.5 ** n,
  of: "synthetic",
});

/** Intervals that give each verdict of a rule: held, did not hold (each side), straddling. */
function edges(rule: Rule): { held: Interval[]; not: Interval[]; straddle: Interval[] } {
  const [lo, hi] = ruleBand(rule);
  switch (rule.kind) {
    case "above": {
      const e = Math.max(Math.abs(rule.margin), 1) * 0.01;
      return {
        held: [iv(rule.margin + e / 100, rule.margin + e)],
        not: [iv(rule.margin - e, rule.margin)],
        straddle: [iv(rule.margin - e, rule.margin + e)],
      };
    }
    case "below": {
      const e = Math.max(Math.abs(rule.margin), 1) * 0.01;
      return {
        held: [iv(rule.margin - e, rule.margin - e / 100)],
        not: [iv(rule.margin, rule.margin + e)],
        straddle: [iv(rule.margin - e, rule.margin + e)],
      };
    }
    case "inside": {
      const e = (hi - lo) / 100;
      return {
        held: [iv(lo, hi), iv(lo + e, lo + 2 * e), iv(hi - 2 * e, hi)],
        not: [iv(hi + e / 100, hi + e), iv(lo - e, lo - e / 100)],
        straddle: [iv(lo - e, lo + e), iv(hi - e, hi + e)],
      };
    }
  }
}

/** A factor's value just inside each finite end of its distance, and just outside it. */
function factorValues(f: RegimeFactor): { inside: number[]; outside: number[] } {
  const [a, b] = f.within;
  const inside: number[] = [];
  const outside: number[] = [];
  if (a > 0) {
    inside.push(f.seed * a);
    outside.push(f.seed * a * 0.999);
  }
  if (Number.isFinite(b)) {
    inside.push(f.seed * b);
    outside.push(f.seed * b * 1.001 + (b === 0 ? 1e-9 : 0));
  }
  if (!inside.length) inside.push(f.seed);
  return { inside, outside };
}

/** A position inside every factor the claim names. */
function insidePosition(set: AnyClaimSet, c: ClaimCore): Position<string> {
  return Object.fromEntries(c.regime.map((k) => [k, factorValues(set.factors[k]).inside[0]]));
}

/** A magnitude, an equivalence, or a direction whose sign the machine sets. */
const gated = (c: ClaimCore) => c.kind === "magnitude" || c.kind === "equivalence" || c.signSetBy !== undefined;
/** A condition of the run gates any kind of claim. */
const gatedBy = (c: ClaimCore, f: RegimeFactor) => gated(c) || f.condition === true;

test("the engine's generated tests find the migrated notebooks' claims through the registry", () => {
  assert.deepEqual(
    SETS.map((s) => s.id),
    ["01", "02", "03", "04", "05", "06", "07", "08"],
  );
  for (const { set } of SETS) assert.ok(set.claims.length > 0);
});

for (const { id, set, e } of SETS) {
  for (const c of set.claims) {
    const fmt = c.statistic.fmt;
    const decideAt = (m: Measured) => decideClaim(c, set.factors, fmt, m);
    const inside = insidePosition(set, c);

    test(`${id} (${c.id}) declaration: rendered once, with its seed sentence, kind, regime and rule`, () => {
      const d = declaration(c, set.factors, c.statistic);
      assert.ok(d.seed.includes(c.sentence.original));
      assert.equal(d.kind, c.kind);
      assert.ok(d.rule.length > 10, d.rule);
      if (c.kind === "mechanism") assert.match(d.claim, /the lab's check/);
      if (c.sentence.whose)
        assert.ok(d.claim.startsWith(`[${c.sentence.whose}] `) && d.seed.startsWith(`[${c.sentence.whose}] `));
    });

    if (c.kind === "derived" || !c.rule) {
      test(`${id} (${c.id}) is derived: shown whatever its interval, never counted, never planned as evidence`, () => {
        for (const stat of [iv(0, 1), iv(1e6, 1e6 + 1), undefined]) {
          const o = decideAt({ statistic: stat, position: inside });
          assert.equal(o.verdict, "derived");
          assert.equal(isEvidence(o), false);
        }
      });
      continue;
    }
    const rule = c.rule;

    test(`${id} (${c.id}) at its rule's margins: held just inside, did not hold just outside, inconclusive straddling or with 3 repeats`, () => {
      const e = edges(rule);
      const at = (stat: Interval): Verdict => decideAt({ statistic: stat, position: inside }).verdict;
      for (const x of e.held) assert.equal(at(x), "held", `${JSON.stringify(x)} against ${JSON.stringify(rule)}`);
      for (const x of e.not)
        assert.equal(at(x), "did not hold", `${JSON.stringify(x)} against ${JSON.stringify(rule)}`);
      for (const x of e.straddle) assert.equal(at(x), "inconclusive", JSON.stringify(x));
      const few = e.held[0];
      assert.equal(at(iv(few.low, few.high, 3)), "inconclusive", "3 repeats cover the median with 75 %");
      // An adaptive run's per-look coverage (stats/adaptive lookPlan): 5 repeats' 93.8 % is too little at 95 %.
      const look = (n: number) => decideAt({ statistic: iv(few.low, few.high, n), position: inside, level: 0.95 });
      assert.equal(look(5).verdict, "inconclusive", look(5).reason);
      assert.equal(look(6).verdict, "held", look(6).reason);
      assert.equal(decideAt({ statistic: undefined, position: inside }).verdict, "inconclusive", "nothing measured");
      // As parts of an all-of statistic: every part held → held; one part outside → did not hold.
      const part = (x: Interval) => ({ label: "part", interval: x });
      assert.equal(decideAt({ statistic: [part(e.held[0]), part(e.held[0])], position: inside }).verdict, "held");
      const refuted = decideAt({ statistic: [part(e.held[0]), part(e.not[0])], position: inside });
      if (!c.refutation) assert.equal(refuted.verdict, "did not hold");
      else {
        // Holm over two parts at the family error: a part refutes only with ≥ log2(2 ÷ α) values against the claim.
        const need = Math.ceil(Math.log2(2 / FAMILY_ALPHA));
        assert.equal(refuted.verdict, "inconclusive");
        assert.match(refuted.reason, new RegExp(`Holm's correction over 2 parts .* needs ≥ ${need} values against`));
        const margin = rule.kind === "inside" ? NaN : rule.margin;
        const against = (n: number) => ({ ...part(e.not[0]), values: Array<number>(n).fill(margin) });
        const withValues = (n: number) => decideAt({ statistic: [part(e.held[0]), against(n)], position: inside });
        assert.equal(withValues(need).verdict, "did not hold", withValues(need).reason);
        assert.match(withValues(need).reason, /Holm: part p = /);
        assert.equal(withValues(need - 1).verdict, "inconclusive", withValues(need - 1).reason);
      }
      assert.equal(
        decideAt({ statistic: e.held[0], position: inside, absent: "its mode did not run" }).verdict,
        "not tested at this scale",
      );
    });

    if (c.emulatedWhen)
      test(`${id} (${c.id}) when emulated: \`emulated\` whatever the interval, the rule's decision kept in the reason, never evidence`, () => {
        const e = edges(rule);
        const cases: [Interval | undefined, Verdict][] = [
          ...e.held.map((x): [Interval, Verdict] => [x, "held"]),
          ...e.not.map((x): [Interval, Verdict] => [x, "did not hold"]),
          ...e.straddle.map((x): [Interval, Verdict] => [x, "inconclusive"]),
          [iv(e.held[0].low, e.held[0].high, 3), "inconclusive"],
          [undefined, "inconclusive"],
        ];
        for (const [stat, would] of cases) {
          const o = decideAt({ statistic: stat, position: inside, emulated: "the link is this run's input" });
          assert.equal(o.verdict, "emulated", JSON.stringify(stat));
          assert.ok(!isEvidence(o));
          assert.ok(o.reason.startsWith("the link is this run's input: a consistency check"), o.reason);
          assert.ok(o.reason.includes(`consistent with "${would}"`), o.reason);
        }
        // Measured for real, the same interval is decided and counted; a mode that did not run is not tested.
        assert.equal(decideAt({ statistic: e.held[0], position: inside }).verdict, "held");
        assert.equal(
          decideAt({ statistic: e.held[0], position: inside, absent: "did not run", emulated: "x" }).verdict,
          "not tested at this scale",
        );
        const d = declaration(c, set.factors, c.statistic);
        assert.ok(d.emulates && d.emulates.length > 20, "the declaration says which inputs are emulated");
      });

    test(`${id} (${c.id}) at its regime's edges: ${gated(c) ? "decided just inside, not tested just outside" : "decided at any scale, the scale stated; its run's conditions, if any, gate it"}`, () => {
      const held = edges(rule).held[0];
      for (const k of c.regime) {
        const f = set.factors[k];
        const gates = gatedBy(c, f);
        const v = factorValues(f);
        for (const x of v.inside) {
          const o = decideAt({ statistic: held, position: { ...inside, [k]: x } });
          assert.equal(o.verdict, "held", `${f.what} = ${x}: ${o.reason}`);
        }
        for (const x of v.outside) {
          const o = decideAt({ statistic: held, position: { ...inside, [k]: x } });
          if (gates) {
            assert.equal(o.verdict, "not tested at this scale", `${f.what} = ${x}`);
            assert.ok(o.reason.includes(`${f.what} `) && o.reason.includes("(needs"), `names the factor: ${o.reason}`);
          } else {
            assert.equal(o.verdict, "held", `${f.what} = ${x}: a ${c.kind} is decided at any scale`);
            assert.ok(o.scale?.includes(f.what), "the verdict states the scale it was decided at");
          }
        }
        if (gates)
          assert.equal(
            decideAt({ statistic: held, position: { ...inside, [k]: undefined } }).verdict,
            "not tested at this scale",
            "an unknown position is not inside",
          );
      }
    });
  }

  test(`${id}: the plan counts no derived claim and places every gated one by the same factors`, () => {
    for (const profile of ["smoke", "default", "full"] as const) {
      const plans = e.prospect?.(profile, {}) ?? [];
      for (const c of set.claims) {
        const p = plans.find((x) => x.id === c.id);
        assert.ok(p, `${profile}: (${c.id}) planned`);
        if (c.kind === "derived") assert.equal(p.prospect, "not evidence");
        if (!gated(c) && c.kind !== "derived") assert.notEqual(p.prospect, "out of regime");
        const emulated = c.emulatedBefore?.(e.resolve(profile, {}) as never);
        if (emulated && p.prospect !== "unavailable")
          assert.deepEqual([p.prospect, p.reason], ["not evidence", emulated], `${profile}: (${c.id}) emulated`);
      }
    }
  });
}

test("declare refuses a regime band that is the rule's band (04 (1) as it was), a direction without a mechanism, a machine-set sign on anything but a direction with a regime, a derived claim from nothing, an emulation that does not say what it emulates", () => {
  const base = {
    notebook: "test",
    before: () => ({}),
    after: () => ({}),
  };
  const claim = {
    id: "1",
    claim: "TPS drops 20–30 %",
    sentence: { original: "「20～30% ほど劣化」" },
    figure: "−30, −24, −23 %",
    kind: "magnitude" as const,
    rule: { kind: "inside", low: 0.15, high: 0.35 } as const,
    regime: ["stall"],
    regimeText: "the seed's stall share",
    howToTest: "",
    statistic: "lost share",
    fmt: String,
    of: () => undefined,
    needs: "",
    why: () => "",
  };
  const stall: RegimeFactor = { what: "stall share", seed: 0.253, unit: "", within: [0.6, 1.4] };
  assert.throws(
    () => declare({ ...base, factors: { stall }, claims: [claim] }),
    (e: unknown) =>
      e instanceof DeclarationError && /regime band of "stall share" equals its rule's band/.test(e.message),
  );
  // The same rule gated by the seed's protocol instead is accepted.
  const runLength: RegimeFactor = { what: "run length", seed: 30, unit: "s", within: [1, 1] };
  assert.doesNotThrow(() =>
    declare({ ...base, factors: { runLength }, claims: [{ ...claim, regime: ["runLength"] }] }),
  );
  assert.throws(
    () => declare({ ...base, factors: {}, claims: [{ ...claim, regime: [], kind: "direction" }] }),
    /is a direction with no mechanism/,
  );
  assert.throws(
    () => declare({ ...base, factors: {}, claims: [{ ...claim, regime: [], kind: "derived", rule: undefined }] }),
    /is derived from nothing/,
  );
  assert.throws(
    () => declare({ ...base, factors: {} as Record<"nope", RegimeFactor>, claims: [{ ...claim, regime: ["nope"] }] }),
    /unknown regime factor "nope"/,
  );
  const signSetBy = "the rebuild's share of the run";
  assert.throws(
    () => declare({ ...base, factors: { runLength }, claims: [{ ...claim, regime: ["runLength"], signSetBy }] }),
    /sign set by the machine but is not a direction with a regime/,
  );
  const direction = { ...claim, kind: "direction" as const, mechanism: "a lock", signSetBy };
  assert.throws(
    () => declare({ ...base, factors: {}, claims: [{ ...direction, regime: [] }] }),
    /not a direction with a regime/,
  );
  assert.doesNotThrow(() =>
    declare({ ...base, factors: { runLength }, claims: [{ ...direction, regime: ["runLength"] }] }),
  );
  const holm = { regime: ["runLength"], refutation: "holm" as const };
  assert.throws(
    () => declare({ ...base, factors: { runLength }, claims: [{ ...claim, ...holm }] }),
    /confirms a refutation by a one-sided test/,
  );
  const above = { kind: "above", margin: 1 } as const;
  assert.doesNotThrow(() => declare({ ...base, factors: { runLength }, claims: [{ ...claim, ...holm, rule: above }] }));
  const when = { emulatedWhen: () => "the link", emulatedBefore: () => "the link" };
  assert.throws(
    () => declare({ ...base, factors: { runLength }, claims: [{ ...claim, regime: ["runLength"], ...when }] }),
    /can be emulated but does not say which inputs/,
  );
  assert.throws(
    () =>
      declare({
        ...base,
        factors: { runLength },
        claims: [{ ...claim, regime: ["runLength"], emulates: "the link", emulatedWhen: when.emulatedWhen }],
      }),
    /both before the run and after it/,
  );
});

test("a sentence that is not a seed's says whose it is, in the claim and the sentence", () => {
  const c: ClaimCore = {
    id: "i: costs",
    claim: "i costs write throughput",
    sentence: { original: "whether i costs the writes throughput", figure: "no figure", whose: "the lab's question" },
    kind: "direction",
    rule: { kind: "above", margin: 0 },
    mechanism: "index entries",
    regime: [],
    regimeText: "this run",
    howToTest: "",
  };
  const d = declaration(c, {}, { text: "cost", fmt: String });
  assert.equal(d.claim, "[the lab's question] i costs write throughput");
  assert.equal(d.seed, "[the lab's question] whether i costs the writes throughput. Figures: no figure");
  assert.equal(
    declaration({ ...c, sentence: { original: "「x」" } }, {}, { text: "cost", fmt: String }).claim,
    c.claim,
  );
});

test("declare fills in what a declaration may leave out: no regime, no why, no fmt (the set's, else times), no notDeclared, no factors", () => {
  const spec = {
    id: "1",
    claim: "B is slower",
    sentence: { original: "「遅い」", figure: "no figure" },
    kind: "direction",
    rule: { kind: "above", margin: 1 },
    mechanism: "per-row work",
    regimeText: "any size",
    howToTest: "any profile",
    statistic: "B/A",
    of: () => undefined,
    needs: "both",
  } as const;
  const set = declare({ notebook: "test", claims: [spec] });
  const [c] = set.claims;
  assert.deepEqual([c.regime, c.why(undefined as never), c.statistic.fmt(2.5), set.notDeclared], [[], "", "2.50×", []]);
  assert.deepEqual(
    [set.factors, set.before(undefined as never), set.after(undefined as never)],
    [{}, {}, {}],
    "no factors, no positions: a set no regime gates",
  );
  assert.throws(
    () => declare({ notebook: "test", claims: [{ ...spec, regime: ["rows"] }] }),
    /\(1\) names an unknown regime factor "rows"/,
    "a regime still needs its factor declared",
  );
  // A set's fmt stands where a claim declares none; a claim's own fmt stands over it; the set keeps no fmt.
  const withFmt = declare({
    ...set,
    fmt: ratio,
    claims: [
      { ...spec, id: "1" },
      { ...spec, id: "2", fmt: String },
    ],
  });
  assert.deepEqual([withFmt.claims.map((x) => x.statistic.fmt(2.5)), "fmt" in withFmt], [["2.50", "2.5"], false]);
});

test("the kit: when, from, textsFrom, versus, absentWhen, absentUnless, stat, the factor builders, and the formatters", () => {
  assert.deepEqual(
    [when(undefined, String), when(null, String), when("", (x) => `[${x}]`), when("a", (x) => `[${x}]`)],
    ["", "", "", "[a]"],
  );
  assert.equal(
    when(0, (x) => `${x} s`),
    "0 s",
  );
  const text = from(
    (s: { x?: number }) => s.x,
    (x, s) => `${x} of ${JSON.stringify(s)}`,
  );
  assert.deepEqual([text({}), text({ x: 2 })], ["", '2 of {"x":2}']);
  const a = absentWhen("no B", (p: { b: boolean }) => !p.b);
  assert.deepEqual(
    [a.reason, a.before({ b: false }), a.before({ b: true }), a.after(undefined)],
    ["no B", true, false, false],
  );
  const lacking = absentUnless({ planned: (p: { modes: string[] }) => p.modes, ran: (s: { ran: string[] }) => s.ran });
  const both = lacking(["a", "b"], "needs a and b");
  assert.deepEqual(
    [
      both.before({ modes: ["a"] }),
      both.before({ modes: ["b", "a"] }),
      both.after({ ran: ["a", "b"] }),
      both.after({ ran: ["b"] }),
    ],
    [true, false, false, true],
  );
  const st = stat("B/A", () => undefined, "both");
  assert.deepEqual(
    [st.statistic, st.needs, st.fmt(1.234), stat("x", () => undefined, "", ratio).fmt(1.234)],
    ["B/A", "both", "1.23×", "1.23"],
  );
  assert.deepEqual(exactly("clients", 2), { what: "clients", seed: 2, unit: "", within: [1, 1] });
  assert.deepEqual(atLeast("rows", 1000, "rows"), { what: "rows", seed: 1000, unit: "rows", within: [1, Infinity] });
  assert.deepEqual(Object.keys(atLeast("ratio", 1)), ["what", "seed", "unit", "within"]);
  assert.deepEqual(atMost("data ÷ buffers", 0.2), { what: "data ÷ buffers", seed: 0.2, unit: "", within: [0, 1] });
  assert.deepEqual(factor("rows", 100, [0.5, 2], "rows"), { what: "rows", seed: 100, unit: "rows", within: [0.5, 2] });
  const noted = atLeast("reads", 20, "", { condition: true, source: "enough reads:" });
  assert.deepEqual(
    [Object.keys(noted), noted.within, exactly("x", 1, "", { source: "the doc's" }).source],
    [["what", "seed", "unit", "within", "condition", "source"], [1, Infinity], "the doc's"],
    "a note (condition, source) after the band, in the order given",
  );
  const texts = textsFrom((s: { x?: { n: number } }) => s.x, {
    ours: (x) => `${x.n} here`,
    why: (x, s) => `${x.n} of ${Object.keys(s).length} key(s)`,
  });
  assert.deepEqual(
    [Object.keys(texts), texts.ours({}), texts.why({}), texts.ours({ x: { n: 0 } }), texts.why({ x: { n: 2 } })],
    [["ours", "why"], "", "", "0 here", "2 of 1 key(s)"],
    'each text from the same thing, "" where it is not found',
  );
  assert.equal(
    versus({ ms: 1 }, { ms: 2.5 })((x) => `${x.ms} ms`),
    "1 ms vs 2.5 ms",
  );
  assert.deepEqual(
    [f0(2.5), f1(null), f2(undefined), f3(1 / 3), ms(0.5), ms(12.345, 1), ms(NaN)],
    ["3", "n/a", "n/a", "0.333", "0.500 ms", "12.3 ms", "n/a ms"],
  );
});

test("readQuotes and declare keep the ledger: every quoted sentence is declared, quoted, or not declared with a reason", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-quotes-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (quotes: object) =>
    fs.writeFileSync(path.join(dir, "quotes.json"), JSON.stringify({ source: "seed.txt", quotes }));
  write({ a: { original: "「速い」", figure: "2×" }, b: { original: "「遅い」", notDeclared: "because" } });
  const claim = {
    id: "1",
    claim: "A is faster",
    figure: "no figure",
    kind: "magnitude" as const,
    rule: { kind: "above", margin: 1 } as const,
    regimeText: "any size",
    howToTest: "any profile",
    statistic: "A/B",
    of: () => undefined,
    needs: "both",
  };
  const set = (quotes: ReturnType<typeof readQuotes>, sentence = quotes.quote("a")) =>
    declare({
      notebook: "t",
      factors: {},
      before: () => ({}),
      after: () => ({}),
      quotes,
      claims: [{ ...claim, sentence }],
    });
  const Q = readQuotes(dir);
  assert.deepEqual(Q.notDeclared, [{ sentence: { original: "「遅い」" }, reason: "because" }], "the reason kept apart");
  assert.deepEqual(Q.unaccounted(), ["a"], "not yet quoted");
  assert.deepEqual(set(Q).notDeclared, Q.notDeclared);
  assert.deepEqual(Q.unaccounted(), []);
  assert.throws(() => Q.quote("b"), /"b" is quoted but named not declared/);
  assert.throws(() => Q.quote("nope"), /no quote "nope"/);
  assert.throws(() => Q.original("a", "b"), /"b" is quoted but named not declared/, "original refuses as quote does");
  write({ a: { original: "「速い」" }, c: { original: "「忘れた」" }, d: { original: "「引用」" } });
  const cited = readQuotes(dir);
  assert.deepEqual(
    [cited.original("a"), cited.original("a", "d"), cited.original()],
    ["「速い」", "「速い」 「引用」", ""],
  );
  assert.deepEqual(cited.unaccounted(), ["c"], "a sentence cited by original is quoted");
  write({ a: { original: "「速い」" }, c: { original: "「忘れた」" } });
  const forgetful = readQuotes(dir);
  assert.throws(() => set(forgetful), /"c" is neither quoted by a claim nor given a reason/);
  assert.doesNotThrow(() => set(forgetful, forgetful.quote("c")), "c declared now, a quoted by the call before");
});
