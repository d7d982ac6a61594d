/** The /proc run-queue reader (Linux): this process's own schedstat, its parent, a child it starts. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { NewChildren, readCommandLine, readParentPid, readSchedStat } from "../../lib/results/run-queue";

const linux = process.platform === "linux";

test(
  "schedstat, parent and command line of this process; nothing for a pid that does not exist",
  { skip: !linux },
  () => {
    const s = readSchedStat(process.pid);
    assert.ok(s && s.cpuNs > 0 && s.waitNs >= 0 && s.timeslices > 0, JSON.stringify(s));
    assert.equal(readParentPid(process.pid), process.ppid);
    assert.match(readCommandLine(process.pid) ?? "", /node/);
    assert.equal(readSchedStat(2 ** 30), undefined);
    assert.equal(readParentPid(2 ** 30), undefined);
  },
);

test("NewChildren keeps the children started after it that it accepts, and only those", { skip: !linux }, async () => {
  const watch = new NewChildren(process.pid, (cmd) => cmd.includes("sleep 0.4"), 10);
  const [kept, other] = ["0.4", "0.3"].map((s) => spawn("sleep", [s]));
  await new Promise((r) => setTimeout(r, 200));
  const seen = watch.stop();
  await Promise.all([kept, other].map((c) => new Promise((r) => c.on("exit", r))));
  assert.equal(seen.length, 1, JSON.stringify(seen));
  assert.ok(seen[0].waitNs >= 0 && seen[0].timeslices > 0);
});
