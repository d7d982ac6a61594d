/**
 * A parameter declared once (lib/params/declare.ts): its check refuses a bad value naming the
 * parameter, the value and what is allowed; it normalises lists as declared; the type `--help` prints
 * comes from the same declaration; and every notebook's every parameter is checked this way.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  custom,
  declareParams,
  flag,
  integer,
  integers,
  listOf,
  number,
  numbers,
  oneOf,
  orNull,
  texts,
  type ParamsOf,
} from "../../lib/params/declare";
import { ParameterError } from "../../lib/params/validate";
import { EXPERIMENTS } from "../../lib/experiments/registry";

const COLOURS = ["red", "green", "blue"] as const;
const D = declareParams({
  rows: integer("Rows."),
  percent: integer("A percentage.", { min: 10, max: 100 }),
  share: number("A share.", { min: 0, max: 1, belowMax: true, hint: "a share of the run" }),
  sizes: integers("Sizes.", { repeated: "drop", order: "descending" }),
  colours: listOf(COLOURS, "Colours.", { order: "allowed" }),
  levels: listOf([7, 14] as const, "Levels.", { repeated: "refuse", item: "level", type: "number[]" }),
  sweep: numbers("Round trips.", { min: 0, max: 100, empty: true, what: "round trips in ms" }),
  mode: oneOf(["on", "off"], "A mode."),
  metric: orNull(oneOf(["seconds", "tps"], "A metric.")),
  restart: flag("Restart."),
  files: texts("Files."),
  pair: custom("[number, number]", "Two numbers.", (name, v): readonly [number, number] => {
    if (!Array.isArray(v) || v.length !== 2) throw new ParameterError(`${name} must be two numbers`);
    return [Number(v[0]), Number(v[1])];
  }),
});
type P = ParamsOf<typeof D>;

const GOOD: P = {
  rows: 10,
  percent: 50,
  share: 0.25,
  sizes: [1, 3, 3, 2],
  colours: ["blue", "red"],
  levels: [14, 7],
  sweep: [],
  mode: "on",
  metric: null,
  restart: true,
  files: [],
  pair: [1, 2],
};

// The type is inferred from the declaration: a wrong kind does not compile.
// @ts-expect-error: rows is a number
const wrongKind: P = { ...GOOD, rows: "10" };
// @ts-expect-error: "purple" is not a colour
const wrongColour: P = { ...GOOD, colours: ["purple"] };
void wrongKind;
void wrongColour;

test("a declared check normalises as declared and leaves undeclared members alone", () => {
  const checked = D.check({ ...GOOD, extra: "kept" });
  assert.deepEqual(checked.sizes, [3, 2, 1], "repeats dropped, sorted descending");
  assert.deepEqual(checked.colours, ["red", "blue"], "in the allowed list's order");
  assert.deepEqual(checked.levels, [14, 7], "no order asked: as given");
  assert.equal(checked.extra, "kept");
  assert.equal(checked.metric, null);
});

const refusals: [Partial<Record<keyof P, unknown>>, RegExp][] = [
  [{ rows: 0 }, /^rows must be a positive integer, got 0$/],
  [{ rows: 1.5 }, /^rows must be a positive integer, got 1.5$/],
  [{ percent: 5 }, /^percent must be an integer from 10 to 100, got 5$/],
  [{ share: 1 }, /^share must be a number ≥ 0 and < 1 \(a share of the run\), got 1$/],
  [{ share: "0.2" }, /^share must be a number ≥ 0 and < 1 \(a share of the run\), got "0.2"$/],
  [{ sizes: [] }, /^sizes must be a non-empty list of positive integers, got \[\]$/],
  [{ sizes: [1, -2] }, /^sizes\[1\] must be a positive integer, got -2$/],
  [{ colours: ["red", "purple"] }, /^colours\[1\] must be one of red, green, blue; got "purple"$/],
  [{ colours: "red" }, /^colours must be a non-empty list of values drawn from red, green, blue, got "red"$/],
  [{ levels: [7, 7] }, /^levels lists a level twice: 7, 7$/],
  [{ sweep: [0.2, 150] }, /^sweep\[1\] must be a number ≥ 0 and ≤ 100, got 150$/],
  [{ sweep: 0.2 }, /^sweep must be a list of round trips in ms, got 0.2$/],
  [{ mode: "maybe" }, /^mode must be one of on, off; got "maybe"$/],
  [{ metric: "rows" }, /^metric must be one of seconds, tps; got "rows"$/],
  [{ restart: "yes" }, /^restart must be true or false, got "yes"$/],
  [{ files: ["a", 1] }, /^files must be a list of strings, got \["a",1\]$/],
  [{ pair: [1] }, /^pair must be two numbers$/],
];
for (const [bad, message] of refusals) {
  test(`a declared check refuses ${JSON.stringify(bad)}`, () => {
    assert.throws(
      () => D.check({ ...GOOD, ...bad } as P),
      (e: Error) => e instanceof ParameterError && message.test(e.message),
    );
  });
}

test("--help's type and meaning come from the same declaration, in its order", () => {
  assert.deepEqual(
    D.list().map((p) => `${p.name}: ${p.type}`),
    [
      "rows: number",
      "percent: number",
      "share: number",
      "sizes: number[]",
      'colours: ("red" | "green" | "blue")[]',
      "levels: number[]",
      "sweep: number[]",
      'mode: "on" | "off"',
      'metric: "seconds" | "tps" | null',
      "restart: boolean",
      "files: string[]",
      "pair: [number, number]",
    ],
  );
  assert.equal(D.list()[0].meaning, "Rows.");
  assert.deepEqual(D.names, Object.keys(GOOD));
});

test("every notebook refuses a wrong value of each parameter before anything starts, naming both", () => {
  const value = "not-a-value-9";
  for (const entry of EXPERIMENTS) {
    for (const name of Object.keys(entry.profiles.default)) {
      assert.throws(
        () => entry.resolve("smoke", { [name]: value }),
        (e: Error) => e instanceof ParameterError && e.message.includes(name) && e.message.includes(value),
        `${entry.id} ${name}`,
      );
    }
  }
});
