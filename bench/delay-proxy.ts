/**
 * How precisely the user-space delay proxy adds what it is asked for (a benchmark, not a timed test).
 *
 * A TCP echo server (in its own process, as a database server is) and a 64-byte ping-pong client
 * measure round trips: direct, through the proxy at 0 ms (its own cost: two extra socket hops and
 * process wake-ups), and through it at 0.2, 0.85 and 1.7 ms of
 * requested round trip — once "raw" (one-way = request / 2, compared with the proxy at 0: the
 * precision of the delay itself) and once "calibrated" (one-way = (request − the proxy's own cost)
 * / 2, compared with direct: what a reader gets). Goal: within ±10 % of the request or ±30 µs,
 * whichever is larger. A third figure, "closed loop", is what the notebook does: measure, correct,
 * repeat (calibrateLink), then verify with fresh measurements. Medians of `samples` round trips,
 * repeated `rounds` times (median of rounds).
 *
 * `npm run bench` runs it with the others; alone: `node build/bench/delay-proxy.js [--json]`.
 */
import os from "node:os";
import { median } from "simple-statistics";
import { calibrateLink, medianRtt } from "../lib/network/calibrate";
import { DelayProxy } from "../lib/network/delay-proxy";
import { pingClient } from "../lib/network/tcp-echo";
import { has, noPositionals, readCommandArgs, refuse, UsageError } from "../scripts/cli-args";
import { startBarePipe } from "./support/bare-pipe-process";
import { startEchoProcess } from "./support/echo-process";

/** The seed's same-AZ and cross-AZ round trips, and the quorum sweep's middle point. */
export const REQUESTED_RTT_MS = [0.2, 0.85, 1.7] as const;

export interface DelayPoint {
  readonly requestedMs: number;
  /** ± this is the goal: max(10 % of the request, 30 µs). */
  readonly toleranceUs: number;
  /** One-way = request / 2; added = through the proxy − through the proxy at 0. */
  readonly rawAddedMs: number;
  readonly rawErrorUs: number;
  readonly rawWithinGoal: boolean;
  /** One-way = (request − the proxy's own cost) / 2; added = through the proxy − direct. */
  readonly calibratedAddedMs: number;
  readonly calibratedErrorUs: number;
  readonly calibratedWithinGoal: boolean;
  /** calibrateLink to direct + request, then verified: added = through the proxy − direct. */
  readonly closedLoopAddedMs: number;
  readonly closedLoopErrorUs: number;
  readonly closedLoopWithinGoal: boolean;
  /** How late the proxy delivered against each chunk's due time, µs (median, 99th percentile). */
  readonly deliveryLateP50Us: number;
  readonly deliveryLateP99Us: number;
}

export interface DelayProxyBench {
  readonly name: "delay-proxy";
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly kernel: string;
    readonly loadAverage1m: number;
  };
  readonly samples: number;
  readonly rounds: number;
  readonly directRttMs: number;
  /** The proxy's own cost at 0 ms: through it − direct. */
  readonly overheadAtZeroUs: number;
  /** The same for a bare socket-to-socket pipe in its own process: what any user-space proxy costs here. */
  readonly barePipeOverheadUs: number;
  readonly proxy: {
    readonly timerSlackNs: number | null;
    readonly niceness: number | null;
    readonly waitLateUs: number;
  };
  readonly points: readonly DelayPoint[];
  readonly allWithinGoal: boolean;
}

export interface BenchOptions {
  readonly samples?: number;
  readonly rounds?: number;
  readonly requestedMs?: readonly number[];
}

export async function benchDelayProxy(options: BenchOptions = {}): Promise<DelayProxyBench> {
  const samples = options.samples ?? 1000;
  const rounds = options.rounds ?? 3;
  const requested = options.requestedMs ?? REQUESTED_RTT_MS;
  const echo = await startEchoProcess();
  const proxy = await DelayProxy.start({ name: "bench", targetHost: "127.0.0.1", targetPort: echo.port });
  const direct = await pingClient("127.0.0.1", echo.port);
  const via = await pingClient("127.0.0.1", proxy.port);
  const pipe = await startBarePipe(echo.port);
  const viaPipe = await pingClient("127.0.0.1", pipe.port);
  try {
    const directs: number[] = [];
    const zeros: number[] = [];
    const pipes: number[] = [];
    const perPoint = requested.map(() => ({
      raw: [] as number[],
      cal: [] as number[],
      closed: [] as number[],
      lateP50: [] as number[],
      lateP99: [] as number[],
    }));
    for (let round = 0; round < rounds; round++) {
      for (const [i, x] of requested.entries()) {
        // Each point against its own, adjacent baselines: load on a shared machine drifts.
        const d = await medianRtt(direct.probe, samples, 100);
        await proxy.setOneWayDelay(0);
        const z = await medianRtt(via.probe, samples, 100);
        pipes.push(await medianRtt(viaPipe.probe, samples, 100));
        directs.push(d);
        zeros.push(z);
        await proxy.setOneWayDelay(x / 2);
        await proxy.stats(true);
        const raw = await medianRtt(via.probe, samples, 100);
        const lateness = await proxy.stats();
        await proxy.setOneWayDelay(Math.max(0, x - (z - d)) / 2);
        const cal = await medianRtt(via.probe, samples, 100);
        await calibrateLink(proxy, via.probe, {
          targetRttMs: d + x,
          baselineRttMs: d,
          samples: Math.ceil(samples / 2),
        });
        const closed = await medianRtt(via.probe, samples, 100);
        const dAfter = await medianRtt(direct.probe, samples, 100);
        perPoint[i].closed.push(closed - (d + dAfter) / 2);
        perPoint[i].raw.push(raw - z);
        perPoint[i].cal.push(cal - d);
        perPoint[i].lateP50.push(lateness.lateP50Us);
        perPoint[i].lateP99.push(lateness.lateP99Us);
      }
    }
    const points: DelayPoint[] = requested.map((x, i) => {
      const tol = Math.max(0.1 * x * 1000, 30);
      const raw = median(perPoint[i].raw);
      const cal = median(perPoint[i].cal);
      const closed = median(perPoint[i].closed);
      return {
        requestedMs: x,
        toleranceUs: tol,
        rawAddedMs: raw,
        rawErrorUs: (raw - x) * 1000,
        rawWithinGoal: Math.abs(raw - x) * 1000 <= tol,
        calibratedAddedMs: cal,
        calibratedErrorUs: (cal - x) * 1000,
        calibratedWithinGoal: Math.abs(cal - x) * 1000 <= tol,
        closedLoopAddedMs: closed,
        closedLoopErrorUs: (closed - x) * 1000,
        closedLoopWithinGoal: Math.abs(closed - x) * 1000 <= tol,
        deliveryLateP50Us: median(perPoint[i].lateP50),
        deliveryLateP99Us: median(perPoint[i].lateP99),
      };
    });
    const cpus = os.cpus();
    return {
      name: "delay-proxy",
      machine: {
        cpus: cpus.length,
        cpuModel: cpus[0]?.model ?? "unknown",
        kernel: os.release(),
        loadAverage1m: os.loadavg()[0],
      },
      samples,
      rounds,
      directRttMs: median(directs),
      overheadAtZeroUs: (median(zeros) - median(directs)) * 1000,
      barePipeOverheadUs: (median(pipes) - median(directs)) * 1000,
      proxy: { timerSlackNs: proxy.timerSlackNs, niceness: proxy.niceness, waitLateUs: proxy.waitLateUs },
      points,
      allWithinGoal: points.every((p) => p.calibratedWithinGoal && p.closedLoopWithinGoal),
    };
  } finally {
    direct.close();
    via.close();
    viaPipe.close();
    await pipe.close();
    await proxy.close();
    await echo.close();
  }
}

function printTable(b: DelayProxyBench): void {
  const us = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(1)} µs`;
  console.log(
    `delay proxy: direct round trip ${(b.directRttMs * 1000).toFixed(1)} µs; the proxy's own cost at 0 ms ${us(b.overheadAtZeroUs)} (a bare pipe's ${us(b.barePipeOverheadUs)})`,
  );
  console.log(
    `(timer slack ${b.proxy.timerSlackNs ?? "default"} ns, nice ${b.proxy.niceness ?? "unchanged"}, Atomics.wait ${b.proxy.waitLateUs.toFixed(0)} µs late at start; load ${b.machine.loadAverage1m.toFixed(2)} on ${b.machine.cpus} CPUs)`,
  );
  const cell = (addedMs: number, errorUs: number, ok: boolean) =>
    `${(addedMs * 1000).toFixed(1).padStart(7)} µs (${us(errorUs).padStart(9)}) ${ok ? "ok  " : "MISS"}`;
  console.log(
    "requested   goal       raw (delay alone)               one-step calibrated             closed loop (the notebook)      delivery late p50/p99",
  );
  for (const p of b.points) {
    console.log(
      `${p.requestedMs.toFixed(2).padStart(6)} ms   ±${p.toleranceUs.toFixed(0).padStart(3)} µs   ` +
        `${cell(p.rawAddedMs, p.rawErrorUs, p.rawWithinGoal)}   ${cell(p.calibratedAddedMs, p.calibratedErrorUs, p.calibratedWithinGoal)}   ` +
        `${cell(p.closedLoopAddedMs, p.closedLoopErrorUs, p.closedLoopWithinGoal)}   ${p.deliveryLateP50Us.toFixed(1)}/${p.deliveryLateP99Us.toFixed(0)} µs`,
    );
  }
  console.log(
    b.allWithinGoal
      ? "calibrated and closed-loop figures all within the goal"
      : "some calibrated or closed-loop figures missed the goal",
  );
}

function mainArgs(): { json: boolean } | undefined {
  try {
    const parsed = readCommandArgs(process.argv.slice(2), {
      help: { type: "boolean", short: "h" },
      json: { type: "boolean" },
    });
    noPositionals(parsed);
    if (has(parsed, "help")) {
      console.log(
        "Usage: node build/bench/delay-proxy.js [--json]\nThe delay proxy's precision; --json prints the figures as JSON.",
      );
      return undefined;
    }
    return { json: has(parsed, "json") };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.exitCode = refuse("delay-proxy", e, "node build/bench/delay-proxy.js --help");
    return undefined;
  }
}

const args = require.main === module ? mainArgs() : undefined;
if (args) {
  benchDelayProxy()
    .then((b) => {
      if (args.json) console.log(JSON.stringify(b, null, 2));
      else printTable(b);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
