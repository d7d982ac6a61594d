/** Notebook 05's plotly figures. */
import {
  axis,
  COLOR,
  errorBars,
  PALETTE,
  titledFigure,
  type PlotlyFigure,
  type PlotlyTrace,
} from "../../display/plotly";
import { CASE_INFO, CASES } from "./workload/cases";
import { SYNC_LEVELS } from "./workload/replication";
import { seedValue, SEED_CONDITIONS, SEED_LABELS } from "./seed";
import { findEnvironment, flaggedRepeats, updated, type RoundTripsSummary } from "./summarise";

const scatter = (mode: "lines" | "markers" | "lines+markers") => ({ type: "scatter", mode }) as const;

/**
 * Seconds per 10,000 statements against the client's round trip, one line per case: the slope of a
 * line is the case's round trips (per 10,000), and quorum commit lifts the committing cases.
 */
export function elapsedVsRtt(s: RoundTripsSummary): PlotlyFigure {
  const data: PlotlyTrace[] = [];
  CASES.forEach((c, i) => {
    for (const quorum of [false, true]) {
      const pts = s.cases
        .filter((x) => x.case === c && (findEnvironment(s, x.environment)?.quorum ?? false) === quorum)
        .sort((a, b) => a.rttMs - b.rttMs);
      if (!pts.length) continue;
      data.push({
        ...scatter("lines+markers"),
        name: `${CASE_INFO[c].label}${quorum ? " — quorum commit" : ""}`,
        legendgroup: c,
        x: pts.map((p) => p.rttMs),
        y: pts.map((p) => p.secondsPer10k),
        text: pts.map(
          (p) =>
            `${p.environment}: ${p.medianSeconds.toFixed(3)} s for ${p.statements.toLocaleString("en-US")} (${p.roundTrips.toLocaleString("en-US")} round trips)`,
        ),
        line: { color: PALETTE[i % PALETTE.length], dash: quorum ? "dash" : "solid" },
        marker: { symbol: quorum ? "square" : "circle" },
      });
    }
  });
  for (const [series, label, color] of [
    ["update_autocommit_seconds", "seed: UPDATE ×10,000 autocommit", PALETTE[1]],
    ["update_one_transaction_seconds", "seed: UPDATE ×10,000 in one transaction", PALETTE[2]],
  ] as const)
    data.push({
      ...scatter("markers"),
      name: label,
      x: SEED_CONDITIONS.map((c) => seedValue("rtt_select1", c)),
      y: SEED_CONDITIONS.map((c) => seedValue(series, c)),
      text: SEED_CONDITIONS.map((c) => SEED_LABELS[c]),
      marker: { symbol: "diamond-open", size: 12, color, line: { width: 2 } },
    });
  const title = "Seconds per 10,000 statements vs the client's round trip (slope = round trips per statement)";
  const rtt = "client round trip, ms (the environment's own 10,000 × SELECT 1 time / N, the seed's measure)";
  const layout = { xaxis: axis(rtt), yaxis: axis("s per 10,000 statements (median)"), legend: { font: { size: 10 } } };
  return titledFigure(title, layout, data);
}

export function commitLatencyBySyncLevel(s: RoundTripsSummary): PlotlyFigure | undefined {
  if (!s.sweep.length) return undefined;
  const data: PlotlyTrace[] = SYNC_LEVELS.filter((l) => s.sweep.some((x) => x.level === l)).map((level, i) => {
    const pts = s.sweep.filter((x) => x.level === level).sort((a, b) => a.standbyRttMs - b.standbyRttMs);
    return {
      ...scatter("lines+markers"),
      name: `synchronous_commit = ${level}`,
      x: pts.map((p) => p.standbyRttMs),
      y: pts.map((p) => p.commitMs),
      ...errorBars(
        pts.map((p) => p.commitMsMax - p.commitMs),
        pts.map((p) => p.commitMs - p.commitMsMin),
      ),
      line: { color: PALETTE[i % PALETTE.length] },
    };
  });
  const local = s.sweep.filter((x) => x.level === "local");
  if (local.length) {
    const xs = [...new Set(s.sweep.map((x) => x.standbyRttMs))].sort((a, b) => a - b);
    const base = local.reduce((a, b) => a + b.commitMs, 0) / local.length;
    data.push({
      ...scatter("lines"),
      name: "local flush + one standby round trip",
      x: xs,
      y: xs.map((x) => base + x),
      line: { color: "#999", dash: "dot" },
    });
  }
  const title = "An autocommit UPDATE by synchronous_commit level and standby round trip (ANY 1 of 2 standbys)";
  const xaxis = axis("primary ↔ standby round trip, ms (as reached)");
  const yaxis = axis("ms per autocommit UPDATE (median; bars: range over repeats)");
  return titledFigure(title, { xaxis, yaxis }, data);
}

/** Autocommit vs one transaction per environment, ours (scaled to 10,000) beside the seed's. */
export function autocommitVsOneTransaction(s: RoundTripsSummary): PlotlyFigure {
  const envs = s.environments.flatMap((e) => updated(e.environment)(s) ?? []);
  const cases = [
    ["autocommit", "autocommit"],
    ["oneTransaction", "one transaction"],
  ] as const;
  const data: PlotlyTrace[] = cases.map(([k, which], i) => ({
    type: "bar",
    name: `ours: ${which}`,
    x: envs.map((e) => e.environment),
    y: envs.map((e) => e[k].secondsPer10k),
    marker: { color: PALETTE[i + 1] },
  }));
  // Every trial too, scaled to 10,000 statements; flagged ones (outlier, checkpoint inside) as red crosses.
  for (const [k, which] of cases) {
    const pts = envs.flatMap((e) =>
      Object.entries(e[k].secondsByRepeat).map(([repeat, seconds]) => ({
        env: e.environment,
        y: e[k].case === "bulk_update" ? seconds : (seconds * 10_000) / e[k].statements,
        repeat: Number(repeat),
        flagged: flaggedRepeats(e[k]).has(Number(repeat)),
      })),
    );
    data.push({
      ...scatter("markers"),
      name: `ours: ${which}, each repeat`,
      x: pts.map((p) => p.env),
      y: pts.map((p) => p.y),
      customdata: pts.map((p) => `repeat ${p.repeat}${p.flagged ? " (flagged)" : ""}`),
      hovertemplate: `${which} %{customdata}: %{y:.2f} s<extra></extra>`,
      marker: {
        symbol: pts.map((p) => (p.flagged ? "x" : "circle-open")),
        color: pts.map((p) => (p.flagged ? COLOR.red : "#333")),
        size: 7,
      },
    });
  }
  for (const [series, name, color] of [
    ["update_autocommit_seconds", "seed: autocommit", "#7a3d00"],
    ["update_one_transaction_seconds", "seed: one transaction", "#1d5e1a"],
  ] as const)
    data.push({
      ...scatter("markers"),
      name,
      x: ["local", "same-az", "cross-az"],
      y: SEED_CONDITIONS.map((c) => seedValue(series, c)),
      marker: { symbol: "diamond", size: 12, color },
    });
  return {
    data,
    layout: {
      barmode: "group",
      title: {
        text: "10,000 UPDATEs: autocommit vs one transaction (diamonds: the seed's Aurora at the same-AZ / other-AZ positions)",
      },
      yaxis: axis("s per 10,000 statements", {}),
    },
  };
}
