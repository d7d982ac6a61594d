import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readExtras, storedExtras } from "../../lib/experiments/define";

const file = (content: string): string => {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dblab-extras-")), "extras.json");
  fs.writeFileSync(f, content);
  return f;
};

test("a run's extras read back as they were written: a Map (01's unavailable engines) stays a Map", () => {
  const extra = {
    unavailable: new Map([["mongodb", "no mongod on PATH"]]),
    template: { databaseBytes: 123, init: { seconds: 1.5 } },
    notes: ["a", "b"],
    none: new Map(),
  };
  const back = readExtras(file(JSON.stringify(storedExtras(extra))));
  assert.deepEqual(back, extra);
  assert.ok(back.unavailable instanceof Map);
  assert.equal(back.unavailable.get("mongodb"), "no mongod on PATH");
});

test("extras that JSON drops or cannot hold: undefined keys left out, as the run's other files", () => {
  const back = readExtras(file(JSON.stringify(storedExtras({ calibration: undefined, n: 1 }))));
  assert.deepEqual(back, { n: 1 });
});

test("an unreadable or non-object extras file is refused with the file's name and the cause", () => {
  for (const bad of ["{ torn", "[1, 2]", "null", "3"]) {
    const f = file(bad);
    assert.throws(
      () => readExtras(f),
      (e: Error) => e.message === `${f} is unreadable` && e.cause instanceof Error,
      bad,
    );
  }
});
