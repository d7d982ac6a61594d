/** What one trial of notebook 05 records: a case in an environment, or a commit at a sync level. */
import type { LinkStats } from "../../../network/types";
import type { PgServerCounterKey } from "../../../engines/postgres/server-counters";
import type { TrialRecord } from "../../../results/run-store";
import type { CaseId } from "./cases";
import type { LagSummary, SyncLevel } from "./replication";
import type { StatementTimes } from "../../../workloads/statement-timing";
import type { SecondsOf } from "../../../workloads/timed";

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
  readonly roundTrips?: number;
  readonly statementTimes?: StatementTimes;
  /** As calibrated (median SELECT 1 through the links, ms); standby: null without standbys. */
  readonly clientRttMs?: number;
  readonly standbyRttMs?: number | null;
  readonly lags?: LagSummary;
  /** The proxy's delivery record during the trial (netem has none). */
  readonly link?: LinkStats;
  /** Its round trips crossed a real network to hosts the user named (`hosts`). */
  readonly real?: boolean;
  readonly order?: number;
  /** Untimed work since the previous trial's record, seconds by what it was. */
  readonly beforeSeconds?: SecondsOf<string>;
  readonly prepareSeconds?: number;
  readonly replayWaitSeconds?: number;
  readonly countersSeconds?: number;
};

export function trialKey(c: RoundTripCondition, repeat: number): string {
  return c.kind === "case"
    ? `case/${c.environment}/${c.case}/n${c.statements}/r${repeat}`
    : `sweep/${c.standbyRttMs}ms/${c.level}/n${c.commits}/r${repeat}`;
}
