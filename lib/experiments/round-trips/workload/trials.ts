/** What one trial of notebook 05 records: a case in an environment, or a commit at a sync level. */
import type { LinkStats } from "../../../network/types";
import type { PgServerCounterKey } from "../../../engines/postgres/server-counters";
import type { TrialRecord } from "../../../results/run-store";
import type { CaseId } from "./cases";
import type { LagSummary, SyncLevel } from "./replication";
import type { StatementTimes } from "../../../workloads/statement-timing";

/** The emulated environments, and "external" for a real server measured as it is. */
export type EnvironmentKey = "local" | "same-az" | "cross-az" | "quorum-same-az" | "quorum-cross-az" | "external";

export type RoundTripCondition =
  | {
      readonly kind: "case";
      readonly environment: EnvironmentKey;
      readonly case: CaseId;
      readonly statements: number;
    }
  | {
      readonly kind: "commit-level";
      readonly level: SyncLevel;
      /** The requested standby round trip, ms. */
      readonly standbyRttMs: number;
      readonly commits: number;
    };

/** Its counters are the whole server's (serverCounters). */
export type RoundTripTrial = TrialRecord<RoundTripCondition, PgServerCounterKey> & {
  /** Round trips the case makes (statements sent). */
  readonly roundTrips?: number;
  readonly statementTimes?: StatementTimes;
  /** The client link's round trip as calibrated for this environment (median SELECT 1, ms). */
  readonly clientRttMs?: number;
  /** The standby links' round trip as calibrated (median SELECT 1 through each link, ms); null: no standbys. */
  readonly standbyRttMs?: number | null;
  /** pg_stat_replication lags sampled during the timed part (quorum environments and the sweep). */
  readonly lags?: LagSummary;
  /** The client link's own delivery record during the trial (the proxy measures it; netem not). */
  readonly link?: LinkStats;
  /** Its round trips crossed a real network to hosts the user named (`hosts`); absent: as its environment says. */
  readonly real?: boolean;
  /** Position among its environment's cases (or sweep levels) in this repeat: the rotation, recorded. */
  readonly order?: number;
  /** Untimed work since the previous trial's record, seconds by what it was (a link set, standbys started, …). */
  readonly beforeSeconds?: Readonly<Record<string, number>>;
  /** This trial's own untimed parts, seconds: its reset, the standbys' replay wait, the counters. */
  readonly prepareSeconds?: number;
  readonly replayWaitSeconds?: number;
  readonly countersSeconds?: number;
};

export function trialKey(c: RoundTripCondition, repeat: number): string {
  return c.kind === "case"
    ? `case/${c.environment}/${c.case}/n${c.statements}/r${repeat}`
    : `sweep/${c.standbyRttMs}ms/${c.level}/n${c.commits}/r${repeat}`;
}
