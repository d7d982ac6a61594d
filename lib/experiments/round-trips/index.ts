/**
 * Notebook 05 (`lab.roundTrips.*`): round trips and commit latency, autocommit vs one transaction,
 * near and far. Its servers start in phases inside `work` (workload/phases.ts), none before.
 */
import { defineExperiment } from "../define";
import { CLAIMS } from "./claims";
import { estimate } from "./eta";
import { checkParams, ROUND_TRIPS_PROFILES } from "./params";
import { noteLinksAndSkipped } from "./present";
import { summarise as summariseRun, withoutFlagged } from "./summarise";
import { runPhases } from "./workload/phases";
import type { RoundTripsRun } from "./summarise";
import type { RoundTripTrial } from "./workload/trials";

export const experiment = defineExperiment({
  slug: "05-round-trips",
  title: "Round trips and commit latency: autocommit vs one transaction, near and far",
  profiles: ROUND_TRIPS_PROFILES,
  check: checkParams,
  servers: () => [],
  work: ({ params, session, control }) => runPhases(params, session, control.continueOnError),
  summarise: (_trials: readonly RoundTripTrial[], run: RoundTripsRun) => summariseRun(run),
  claims: CLAIMS,
  // Claims (b) and (c external) carry their sensitivity to flagged repeats.
  without: (_run, summary) => withoutFlagged(summary),
  csvRows: (summary) =>
    summary.cases.map((c) => ({
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
    })),
  eta: estimate,
  faults: {
    overrides: [
      'environments=["local","quorum-same-az"]',
      'cases=["update_autocommit","update_one_transaction"]',
      "statements=300",
      'syncLevels=["on"]',
      "sweepStandbyRttsMs=[]",
    ],
    point: "quorum",
    cells: [
      { fault: "kill-9", target: "embedded", boundSeconds: 30 },
      // Passes; left out of the default selection to keep the matrix inside its time.
      { fault: "sigterm", target: "embedded", boundSeconds: 45, byName: true },
    ],
  },
});

export const { params, run, open, summarise, claims, save, showClaims, registered } = experiment;

export function showRun(r: RoundTripsRun): void {
  experiment.showRun(r);
  noteLinksAndSkipped(r);
}

export * from "./present";
