/** Writes a run's summaries as JSON and CSV beside its trials. */
import { summaryCsv } from "../../results/summary-csv";
import type { RunStore } from "../../results/run-store";
import type { ClaimCheck } from "../../stats/claims";
import type { RoundTripCondition } from "./workload/trials";
import { NOTEBOOK } from "./run";
import type { RoundTripsSummary } from "./summarise";

export function writeSummaries(
  store: RunStore<RoundTripCondition>,
  summary: RoundTripsSummary,
  claims: readonly ClaimCheck[],
): string[] {
  const rows = summary.cases.map((c) => ({
    environment: c.environment,
    case: c.case,
    statements: c.statements,
    trials: c.trials,
    median_s: c.medianSeconds,
    min_s: c.minSeconds,
    max_s: c.maxSeconds,
    s_per_10000: c.secondsPer10k,
    round_trips: c.roundTrips,
    ms_per_round_trip: c.msPerRoundTrip,
    statement_p50_ms: c.statementP50Ms,
    client_rtt_ms: c.clientRttMs,
    standby_rtt_ms: c.standbyRttMs,
    wal_syncs: c.walSyncs,
    wal_sync_time_ms: c.walSyncTimeMs,
    xact_commits: c.xactCommits,
    flush_lag_ms: c.flushLagMs,
  }));
  return [
    store.writeSummary("summary.json", { summary, claims }),
    store.writeSummary("summary.csv", summaryCsv(rows, { runId: store.runId, notebook: NOTEBOOK })),
  ];
}
