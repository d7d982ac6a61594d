import { test } from "node:test";
import assert from "node:assert/strict";
import {
  latencyDistribution,
  parseAggregateLog,
  parseProgressLine,
  parseSummary,
  parseTransactionLog,
  pgbenchFailure,
  statementLatency,
  transactionSeries,
} from "../../lib/workloads/pgbench";
import { checkLoadOptions, initArgs, loadArgs } from "../../lib/workloads/pgbench/args";

// The seed's own output (seed 003, set 1, run with REINDEX), pgbench 17.6.
const SEED_OUTPUT = `pgbench (17.6)
starting vacuum...end.
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 100
query mode: simple
number of clients: 2
number of threads: 1
maximum number of tries: 1
duration: 30 s
number of transactions actually processed: 26956
number of failed transactions: 0 (0.000%)
latency average = 2.226 ms
initial connection time = 4.322 ms
tps = 898.622746 (without initial connection time)
statement latencies in milliseconds and failures:
         0.001           0  \\set aid random(1, 100000 * :scale)
         0.000           0  \\set bid random(1, 1 * :scale)
         0.000           0  \\set tid random(1, 10 * :scale)
         0.000           0  \\set delta random(-5000, 5000)
         0.015           0  BEGIN;
         0.687           0  UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
         0.102           0  SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
         0.070           0  UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
         0.074           0  UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
         0.048           0  INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
         1.228           0  END;
`;

test("the summary parser reads the seed's pgbench output, per-statement latencies included", () => {
  const s = parseSummary(SEED_OUTPUT);
  assert.equal(s.tps, 898.622746);
  assert.equal(s.transactions, 26956);
  assert.equal(s.failed, 0);
  assert.equal(s.clients, 2);
  assert.equal(s.scalingFactor, 100);
  assert.equal(s.durationSeconds, 30);
  assert.equal(s.latencyAvgMs, 2.226);
  assert.equal(s.statements.length, 11);
  assert.equal(statementLatency(s, /^UPDATE pgbench_accounts/), 0.687);
  assert.equal(s.statements.find((x) => x.command === "END;")?.latencyMs, 1.228);
  assert.equal(s.abortedClients, 0);
});

test("older pgbench output (no failures column, two tps lines) parses too", () => {
  const old = `transaction type: <builtin: TPC-B (sort of)>
number of transactions actually processed: 100
latency average = 1.000 ms
tps = 90.0 (including connections establishing)
tps = 95.5 (excluding connections establishing)
statement latencies in milliseconds:
         0.125  UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
`;
  const s = parseSummary(old, "client 1 aborted in command 4 (SQL) of script 0; ERROR: x\n");
  assert.equal(s.tps, 95.5, "the figure without connection time");
  assert.equal(s.statements[0].latencyMs, 0.125);
  assert.equal(s.statements[0].failures, undefined);
  assert.equal(s.abortedClients, 1);
  assert.throws(() => parseSummary("no summary here"), /printed no "tps = " line/);
});

// pgbench 15.18's own output for the issue's script (`UPDATE orders SET status = :nosuchvar …`),
// captured on this machine: no "tps = " line, exit 2, the server's refusal on stderr.
const REJECTED_STDOUT = `pgbench (15.18 (Debian 15.18-0+deb12u1), server 17.6)
transaction type: /tmp/x/badvar.sql
number of transactions actually processed: 0
number of failed transactions: 0 (NaN%)
`;
const REJECTED_STDERR = `pgbench: error: client 0 script 0 aborted in command 0 query 0: ERROR:  syntax error at or near ":"
LINE 1: UPDATE orders SET status = :nosuchvar WHERE id = 1;
                                   ^
pgbench: error: Run was aborted; the above results are incomplete.
`;

test("a pgbench run without a result: pgbench's own words on the message's first line, a rejected script told from a lost server", () => {
  const rejected = pgbenchFailure(2, REJECTED_STDOUT, REJECTED_STDERR);
  assert.equal(rejected.kind, "script");
  const first = rejected.message.split("\n")[0];
  assert.match(first, /^pgbench could not run the script \(exit 2, no "tps = " line\): .*syntax error at or near ":"/);
  assert.match(first, /LINE 1: UPDATE orders SET status = :nosuchvar/);
  assert.doesNotMatch(first, /· \^/, "the caret line alone says nothing");
  // pgbench's parser refusing a meta-command: exit 1.
  const parse = pgbenchFailure(1, "", 'pgbench: error: /tmp/x/bad.sql:1: missing argument in command "set"\n');
  assert.equal(parse.kind, "script");
  // A server that went away mid-run, in libpq's words.
  const lost = pgbenchFailure(
    2,
    REJECTED_STDOUT,
    "pgbench: error: client 0 script 0 aborted in command 4 query 0: server closed the connection unexpectedly\n",
  );
  assert.equal(lost.kind, "connection");
  assert.match(lost.message, /^pgbench lost its connection to the server .*server closed the connection unexpectedly/);
  const refused = pgbenchFailure(
    1,
    "",
    'pgbench: error: connection to server at "127.0.0.1", port 1 failed: Connection refused\n',
  );
  assert.equal(refused.kind, "connection");
  // A server killed under it leaves pgbench no words: said so, not an empty "ends with:".
  const silent = pgbenchFailure(2, "", "");
  assert.equal(silent.kind, "silent");
  assert.match(silent.message, /without a word of error/);
  assert.doesNotMatch(silent.message, /ends with:\s*$/);
});

test("progress lines: relative seconds, --progress-timestamp epochs, NaN latency of an idle second", () => {
  const rel = parseProgressLine("progress: 5.0 s, 907.0 tps, lat 2.203 ms stddev 7.275, 0 failed")!;
  assert.deepEqual([rel.second, rel.tps, rel.latencyMs, rel.stddevMs, rel.failed], [5, 907, 2.203, 7.275, 0]);
  const start = 1_796_000_925_470;
  const abs = parseProgressLine("progress: 1796000927.470 s, 3062.9 tps, lat 0.649 ms stddev 0.558, 0 failed", start)!;
  assert.equal(abs.second, 2);
  assert.equal(abs.epochMs, 1_796_000_927_470);
  const idle = parseProgressLine("progress: 9.0 s, 0.0 tps, lat NaN ms stddev NaN")!;
  assert.equal(idle.tps, 0);
  assert.equal(idle.latencyMs, 0);
  assert.equal(parseProgressLine("starting vacuum...end."), undefined);
});

test("transaction log → exact percentiles and a per-second series with the stall as zeros", () => {
  const start = 1_700_000_000_000;
  const lines: string[] = [];
  // 100 transactions of 1 ms in second 0, none in second 1, one of 1500 ms ending in second 2.
  for (let i = 0; i < 100; i++) lines.push(`0 ${i} 1000 0 1700000000 ${i * 5000}`);
  lines.push("1 0 1500000 0 1700000002 100000");
  lines.push("1 1 failed 0 1700000002 200000");
  const tx = parseTransactionLog(lines.join("\n"));
  assert.equal(tx.length, 102);
  const d = latencyDistribution(tx)!;
  assert.equal(d.n, 101, "failed transactions have no latency");
  assert.equal(d.p50Ms, 1);
  assert.equal(d.maxMs, 1500);
  const series = transactionSeries(tx, start, start + 3000);
  assert.deepEqual(
    series.map((p) => p.transactions),
    [100, 0, 1],
  );
  assert.equal(series[2].latencyMaxMs, 1500);
  const agg = parseAggregateLog("1796000928 996 929457 1017530369 411 5449 0 0 0 0 0 0 0 0 0\n");
  assert.equal(agg[0].transactions, 996);
  assert.ok(Math.abs(agg[0].sumLatencyMs / agg[0].transactions - 0.933) < 0.001);
});

test("argument checks say what is wrong before pgbench starts", () => {
  assert.throws(() => initArgs({ scale: 0 }), /scale must be a positive integer/);
  assert.throws(() => initArgs({ scale: 1, steps: "dtx" }), /init steps must use the letters/);
  assert.throws(
    () => checkLoadOptions({ clients: 2, threads: 4, durationSeconds: 1 }),
    /threads \(4\) cannot exceed clients \(2\)/,
  );
  assert.throws(
    () => checkLoadOptions({ clients: 1, durationSeconds: 0 }),
    /durationSeconds must be a positive integer/,
  );
  const args = loadArgs({ clients: 2, durationSeconds: 30 }, { mode: "transactions", prefix: "/tmp/x/tx" });
  assert.deepEqual(args.slice(0, 8), ["-c", "2", "-j", "1", "-T", "30", "-b", "tpcb-like"]);
  assert.ok(args.includes("--progress-timestamp") && args.includes("-r") && args.includes("--log-prefix=/tmp/x/tx"));
  assert.ok(!args.some((a) => /password/i.test(a)));
});
