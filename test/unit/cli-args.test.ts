/**
 * The argument parsing of `npm run compare` and `npm run reproduce` (util.parseArgs underneath):
 * both spellings of a value, repeated options, and every refusal in the commands' own words, which
 * the CLI tests and users match (exit 2 follows from the error class, checked by the CLI tests).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseCompareArgs } from "../../scripts/compare";
import { parseArgs, UsageError } from "../../scripts/reproduce";
import { CompareInputError } from "../../lib/results/stored-runs";

test("reproduce: --flag value and --flag=value, --set and --only repeated, --profile, flags", () => {
  const o = parseArgs([
    "--profile",
    "smoke",
    "--only",
    "01,02",
    "--only=03",
    "--set",
    "rowCounts=[1000,2000]",
    "--set=target=embedded",
    "--set",
    "note=a=b",
    "--hide-code",
    "--pdf",
    "--cell-timeout=0",
  ]);
  assert.equal(o.profile, "smoke");
  assert.deepEqual(o.only, ["01", "02", "03"]);
  assert.deepEqual(o.sets, { rowCounts: [1000, 2000], target: "embedded", note: "a=b" });
  assert.equal(o.hideCode, true);
  assert.equal(o.pdf, true);
  assert.equal(o.cellTimeoutSec, 0);
  assert.equal(parseArgs(["-h"]).help, true);
  assert.equal(parseArgs([]).profile, "default");
});

test("reproduce refuses in its own words: missing values, unknown flags, positionals, values on flags", () => {
  const refusals: [string[], RegExp][] = [
    [["--set"], /^--set needs a value$/],
    [["--set", "--pdf"], /^--set needs a value$/],
    [["--set="], /^--set needs a value$/],
    [["--set", "novalue"], /^--set needs KEY=VALUE, got "novalue"$/],
    [["--set", "=1"], /^--set needs KEY=VALUE, got "=1"$/],
    [["--reports-dir"], /^--reports-dir needs a value$/],
    [["--frobnicate"], /^unknown argument "--frobnicate"$/],
    [["--frobnicate=3"], /^unknown argument "--frobnicate=3"$/],
    [["-x"], /^unknown argument "-x"$/],
    [["01"], /^unknown argument "01"$/],
    [["--pdf=yes"], /^--pdf takes no value$/],
    [["--cell-timeout", "1.5"], /--cell-timeout must be a whole number of seconds ≥ 0, got "1.5"/],
    [["--profile", "huge"], /profile/],
  ];
  for (const [args, message] of refusals) {
    assert.throws(
      () => parseArgs(args),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
      args.join(" "),
    );
  }
});

test("compare: positional runs, both value spellings, and refusals as CompareInputError", () => {
  const a = parseCompareArgs(["--format=json", "A", "--fail-on-regression", "5%", "B", "--alpha", "0.01", "C"]);
  assert.deepEqual(a.refs, ["A", "B", "C"]);
  assert.equal(a.format, "json");
  assert.equal(a.threshold, 0.05);
  assert.equal(a.alpha, 0.01);
  assert.deepEqual(parseCompareArgs(["--", "--odd-run-name"]).refs, ["--odd-run-name"]);
  assert.equal(parseCompareArgs(["-h"]).help, true);
  const refusals: [string[], RegExp][] = [
    [["--format"], /^--format needs a value$/],
    [["--metric", "--format", "md"], /^--metric needs a value$/],
    [["--format", "xml"], /^--format must be text, md or json, got "xml"$/],
    [["--fail-on-regression", "lots"], /^--fail-on-regression needs a percentage like 5%, got "lots"$/],
    [["--alpha", "2"], /^--alpha must be between 0 and 1, got "2"$/],
    [["--nope", "A"], /^unknown option "--nope"$/],
    [["--help=1"], /^--help takes no value$/],
  ];
  for (const [args, message] of refusals) {
    assert.throws(
      () => parseCompareArgs(args),
      (e: unknown) => e instanceof CompareInputError && message.test(e.message),
      args.join(" "),
    );
  }
});
