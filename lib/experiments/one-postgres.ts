/** 07's and 08's shape: one PostgreSQL server, and the plan's trials run on one adapter over its connection. */
import type { TrialRecord } from "../results/run-store";
import type { ConnectionInfo, ServerSpec, ServerUses } from "../targets/types";
import type { PlannedTrial, PlanOnOptions, TrialAdapter } from "../workloads/trials";
import type { Flagged } from "../stats/claims";
import { flaggedTrials, timedTrialProgress, type TimedConditionSummary } from "./condition-groups";
import { serverName, type PlanEta, type Work } from "./define";
import { finiteOrNaN, referencesIn } from "./eta";

export const postgresServer = (slug: string, sharedBuffersMiB: number, uses: ServerUses): ServerSpec[] => [
  { engine: "postgresql", name: serverName(slug, "pg"), settings: { shared_buffers: `${sharedBuffersMiB}MB` }, uses },
];

/** The work: `run` opens its adapter with `open`; the progress line names the next trial's condition by `label`. */
export const workOnPostgres =
  <P, T extends TrialRecord<object, string>, PT extends PlannedTrial<T["condition"]>, A extends TrialAdapter>(
    open: (connection: ConnectionInfo) => Promise<A>,
    run: (o: PlanOnOptions<A, T["condition"], PT, T>, p: P) => Promise<unknown>,
    label: (c: T["condition"]) => string,
  ) =>
  async ({ params, plan, session: { store, progress, servers, signal }, control }: Work<P, T, PT>) => {
    const server = servers.byEngine.get("postgresql");
    if (!server) throw new Error("no PostgreSQL server was started");
    const onProgress: PlanOnOptions<A, T["condition"], PT, T>["onProgress"] = ({ done, total, last, next }) =>
      progress.update(done, total, timedTrialProgress(last, next && label(next.condition)));
    const options = { plan, store, signal, continueOnError: control.continueOnError, onProgress };
    await run({ ...options, open: () => open(server.connection) }, params);
    progress.finish(`${plan.length} trials`);
    return {};
  };

/** The trials the sensitivity summary leaves out: `detail` says why one is flagged, `none` what would flag one. */
export const flaggedTrialsOf = (summary: readonly TimedConditionSummary[], detail: string, none: string): Flagged => ({
  noun: "trial",
  count: flaggedTrials(summary),
  detail,
  none,
});

/** The ETA of trials that grow with `rows`, one fitted growth per `kind`; the reference rates beside `compiledDir`. */
export const rowsEta = <P extends { readonly rows: number }, C extends object>(
  compiledDir: string,
  kind: (c: C) => string,
): PlanEta<P, PlannedTrial<C>> => ({
  unit: (t, p) => ({ size: p.rows, kind: kind(t.condition) }),
  size: (_condition, params) => finiteOrNaN(params.rows),
  kind: (condition) => kind(condition as C),
  references: referencesIn(compiledDir),
});
