/** Parameters of notebook 04 (REINDEX under load), per profile, and their checks. */
import { LIMIT_PARAMS } from "../target-params";
import type { ProfileName } from "../../params/profiles";
import { custom, declareParams, flag, integer, listOf, number, type ParamsOf } from "../../params/declare";
import { clientsAndThreads, ParameterError, plannedWithCap } from "../../params/validate";

/** Runs per set: a baseline, a plain REINDEX, and CONCURRENTLY (the seed's suggested remedy). */
export const REINDEX_MODES = ["baseline", "reindex", "concurrently"] as const;
export type ReindexMode = (typeof REINDEX_MODES)[number];

export const ReindexUnderLoadParams = declareParams({
  ...LIMIT_PARAMS,
  scale: integer("pgbench scale factor (the seed: 100 = 10M pgbench_accounts rows)."),
  initSteps: custom(
    "string",
    '`pgbench -i -I` steps. "dtGvp" generates the rows server-side (faster on 2 cores than the seed\'s ' +
      'client-side "dtgvp"; same tables).',
    (name, v) => {
      if (typeof v !== "string" || !/^[dtgGvpf]+$/.test(v) || !v.includes("p"))
        throw new ParameterError(
          `${name} must be pgbench -I letters (d t g G v p f) and include "p" (the primary keys this notebook reindexes), got ${JSON.stringify(v)}`,
        );
      return v;
    },
  ),
  clients: integer("pgbench clients, -c (the seed: -c 2, one thread)."),
  threads: integer("pgbench threads (-j), at most `clients`."),
  durationSeconds: integer(
    "Seconds per run (the seed: 30). With `stallShare` > 0 this is the planned length only (the ETA's figure): " +
      "the run length is then chosen from the measured rebuild.",
  ),
  stallShare: number(
    "Opt-in, off in every profile: the share of a run the plain REINDEX should stall (0: run `durationSeconds` as " +
      "given). With a share, a calibration REINDEX of the three keys in a fresh clone is timed before the sets and " +
      "each run lasts rebuild ÷ stallShare seconds, for exploring the mechanism at a chosen share; the seed's " +
      "figure (1) and the remedy's comparison (3a) are then still judged only at its protocol. " +
      "`reindexStartSeconds` keeps its fraction of `durationSeconds`.",
    { min: 0, max: 1, belowMax: true, hint: "a share of the run: 0 runs durationSeconds as given; the seed's ≈ 0.25" },
  ),
  sets: integer("Sets of runs planned (the seed: 3)."),
  maxSets: integer(
    "The adaptive design: while the mechanism check (1m) is inconclusive after the planned sets, one more set at " +
      "a time, up to `maxSets`, and only while the time budget can still reach the sets a verdict needs (5) at the " +
      "pace measured so far. The run records what stopped it. `maxSets = sets`: no adding.",
  ),
  budgetSeconds: integer("Seconds the run may take (server start, template and sets), for the adaptive design."),
  modes: listOf(REINDEX_MODES, "Runs per set, in this order.", { repeated: "refuse", item: "mode" }),
  reindexStartSeconds: number("When the REINDEX starts, seconds after pgbench starts. The seed did not say; mid-run.", {
    min: 0,
    aboveMin: true,
  }),
  sampleIntervalMs: integer("How often pg_stat_activity, pg_locks and pg_stat_progress_create_index are sampled, ms.", {
    min: 20,
    hint: "the sampler's own query takes a few ms",
  }),
  readProbeMs: integer(
    "Pause between the read probe's reads, ms: a read-only client beside the load, in every mode, runs " +
      "`SELECT abalance FROM pgbench_accounts WHERE aid = $1` on a random row one read at a time, so that a read " +
      "the REINDEX holds up shows (claims (r), (rc)). 0: no probe.",
    { min: 0 },
  ),
  restartBetweenRuns: flag("Restart the server before each run, as the seed did between runs."),
  sharedBuffersMB: integer("shared_buffers, MiB (the seed's server: PostgreSQL's default, 128 MB)."),
});
export type ReindexUnderLoadParams = ParamsOf<typeof ReindexUnderLoadParams>;

const SEED = {
  target: "auto",
  initSteps: "dtGvp",
  clients: 2,
  threads: 1,
  modes: [...REINDEX_MODES],
  sampleIntervalMs: 200,
  // 50 reads/s beside the thousands of statements/s of 2 pgbench clients (7 a transaction); 50 reads in a 1 s window.
  readProbeMs: 20,
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

/** Checks a profile's values merged with a reader's overrides (each as declared, then with each other). */
export function checkParams(
  given: ReindexUnderLoadParams,
  overrides: Partial<ReindexUnderLoadParams> = {},
): ReindexUnderLoadParams {
  const p = ReindexUnderLoadParams.check(given);
  if (p.reindexStartSeconds >= p.durationSeconds)
    throw new ParameterError(
      `reindexStartSeconds (${p.reindexStartSeconds}) must be less than durationSeconds (${p.durationSeconds}): the REINDEX has to start while pgbench runs`,
    );
  return { ...p, ...clientsAndThreads(p), ...plannedWithCap(p, overrides, "sets", "maxSets") };
}
