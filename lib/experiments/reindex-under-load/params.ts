/** Parameters of notebook 04 (REINDEX under load), per profile, and their checks. */
import type { LimitParams } from "../define";
import type { ProfileName } from "../../params/profiles";
import { clientsAndThreads, listOf, ParameterError, positiveInteger } from "../../params/validate";

/** Runs per set: a baseline, a plain REINDEX, and CONCURRENTLY (the seed's suggested remedy). */
export const REINDEX_MODES = ["baseline", "reindex", "concurrently"] as const;
export type ReindexMode = (typeof REINDEX_MODES)[number];

export interface ReindexUnderLoadParams extends LimitParams {
  /** pgbench scale factor (the seed: 100 = 10M pgbench_accounts rows). */
  readonly scale: number;
  /** `pgbench -i -I` steps. "dtGvp" generates the rows server-side (faster on 2 cores than the seed's client-side
   * "dtgvp"; same tables). */
  readonly initSteps: string;
  /** pgbench clients, -c (the seed: -c 2, one thread). */
  readonly clients: number;
  /** pgbench threads (-j), at most `clients`. */
  readonly threads: number;
  /** Seconds per run (the seed: 30). With `stallShare` > 0 this is the planned length only (the ETA's figure): the run
   * length is then chosen from the measured rebuild. */
  readonly durationSeconds: number;
  /** Opt-in, off in every profile: the share of a run the plain REINDEX should stall (0: run `durationSeconds` as
   * given). With a share, a calibration REINDEX of the three keys in a fresh clone is timed before the sets and each
   * run lasts rebuild ÷ stallShare seconds, for exploring the mechanism at a chosen share; the seed's figure (1) is
   * then still judged only at its protocol. `reindexStartSeconds` keeps its fraction of `durationSeconds`. */
  readonly stallShare: number;
  /** Sets of runs planned (the seed: 3). */
  readonly sets: number;
  /** The adaptive design: while the mechanism check (1m) is inconclusive after the planned sets, one more set at a
   * time, up to `maxSets`, and only while the time budget can still reach the sets a verdict needs (5) at the pace
   * measured so far. The run records what stopped it. `maxSets = sets`: no adding. */
  readonly maxSets: number;
  /** Seconds the run may take (server start, template and sets), for the adaptive design. */
  readonly budgetSeconds: number;
  /** Runs per set, in this order. */
  readonly modes: readonly ReindexMode[];
  /** When the REINDEX starts, seconds after pgbench starts. The seed did not say; mid-run. */
  readonly reindexStartSeconds: number;
  /** How often pg_stat_activity, pg_locks and pg_stat_progress_create_index are sampled, ms. */
  readonly sampleIntervalMs: number;
  /** Restart the server before each run, as the seed did between runs. */
  readonly restartBetweenRuns: boolean;
  /** shared_buffers, MiB (the seed's server: PostgreSQL's default, 128 MB). */
  readonly sharedBuffersMB: number;
}

const SEED = {
  target: "auto",
  initSteps: "dtGvp",
  clients: 2,
  threads: 1,
  modes: [...REINDEX_MODES],
  sampleIntervalMs: 200,
  restartBetweenRuns: true,
  sharedBuffersMB: 128,
  cpus: 2,
  memoryGiB: 4,
  stallShare: 0,
} as const;

export const REINDEX_UNDER_LOAD_PROFILES: Readonly<Record<ProfileName, ReindexUnderLoadParams>> = {
  smoke: {
    ...SEED,
    scale: 1,
    durationSeconds: 4,
    sets: 1,
    maxSets: 1,
    budgetSeconds: 120,
    reindexStartSeconds: 1.5,
    sampleIntervalMs: 100,
  },
  // A run must hold the whole CONCURRENTLY build with pgbench's rate measured on both sides of it, and 5
  // sets (the fewest that decide a claim) must fit a few minutes (docs/claims-and-regimes.md, 04's row).
  // The length is fixed, not set from the rebuild: no default is shaped to land the seed's (1).
  default: {
    ...SEED,
    scale: 50,
    durationSeconds: 10,
    sets: 5,
    // A 6th or 7th set cannot move the exact interval of 5 (it stays the range): no set is added here.
    maxSets: 5,
    budgetSeconds: 330,
    reindexStartSeconds: 3,
  },
  // The seed's protocol, where its figure (1) is judged; it did not say when its REINDEX started: a
  // third into the run, so CONCURRENTLY ends inside it.
  full: {
    ...SEED,
    scale: 100,
    durationSeconds: 30,
    sets: 5,
    maxSets: 8,
    budgetSeconds: 1800,
    reindexStartSeconds: 10,
  },
};

const fail = (message: string): never => {
  throw new ParameterError(message);
};
const positiveNumber = (name: string, value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0
    ? value
    : fail(`${name} must be a number > 0, got ${JSON.stringify(value)}`);

/** Checks a profile's values merged with a reader's overrides (target, cpus and memoryGiB: the base). */
export function checkParams(p: ReindexUnderLoadParams, overrides: Partial<ReindexUnderLoadParams> = {}) {
  const durationSeconds = positiveInteger("durationSeconds", p.durationSeconds);
  const reindexStartSeconds = positiveNumber("reindexStartSeconds", p.reindexStartSeconds);
  if (reindexStartSeconds >= durationSeconds)
    fail(
      `reindexStartSeconds (${reindexStartSeconds}) must be less than durationSeconds (${durationSeconds}): the REINDEX has to start while pgbench runs`,
    );
  if (typeof p.initSteps !== "string" || !/^[dtgGvpf]+$/.test(p.initSteps) || !p.initSteps.includes("p"))
    fail(
      `initSteps must be pgbench -I letters (d t g G v p f) and include "p" (the primary keys this notebook reindexes), got ${JSON.stringify(p.initSteps)}`,
    );
  const modes = listOf("modes", p.modes, REINDEX_MODES);
  if (new Set(modes).size !== modes.length) fail(`modes lists a mode twice: ${modes.join(", ")}`);
  const sampleIntervalMs = positiveInteger("sampleIntervalMs", p.sampleIntervalMs);
  if (sampleIntervalMs < 20)
    fail(`sampleIntervalMs must be at least 20 (the sampler's own query takes a few ms), got ${sampleIntervalMs}`);
  if (typeof p.stallShare !== "number" || !(p.stallShare >= 0 && p.stallShare < 1))
    fail(
      `stallShare must be a share of the run in [0, 1) (0: run durationSeconds as given; the seed's ≈ 0.25), got ${JSON.stringify(p.stallShare)}`,
    );
  const sets = positiveInteger("sets", p.sets);
  // Raising `sets` alone raises the ceiling with it, so an override of sets is never refused for it.
  const raised = overrides.sets !== undefined && overrides.maxSets === undefined;
  const maxSets = positiveInteger("maxSets", raised ? Math.max(sets, p.maxSets) : p.maxSets);
  if (maxSets < sets) fail(`maxSets (${maxSets}) is smaller than sets (${sets})`);
  if (typeof p.restartBetweenRuns !== "boolean")
    fail(`restartBetweenRuns must be true or false, got ${JSON.stringify(p.restartBetweenRuns)}`);
  return {
    ...p,
    scale: positiveInteger("scale", p.scale),
    ...clientsAndThreads(p),
    durationSeconds,
    sets,
    maxSets,
    budgetSeconds: positiveInteger("budgetSeconds", p.budgetSeconds),
    modes,
    reindexStartSeconds,
    sampleIntervalMs,
    sharedBuffersMB: positiveInteger("sharedBuffersMB", p.sharedBuffersMB),
  };
}
