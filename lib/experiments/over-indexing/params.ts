/** Parameters of notebook 03 (over-indexing), per profile, and their checks. */
import { LIMIT_PARAMS } from "../target-params";
import type { ProfileName } from "../../params/profiles";
import { declareParams, integer, listOf, number, type ParamsOf } from "../../params/declare";
import { clientsAndThreads, ParameterError, repeatsWithCap } from "../../params/validate";
import { INDEX_LEVELS } from "./workload/schema";

export const OverIndexingParams = declareParams({
  ...LIMIT_PARAMS,
  dataScale: number(
    "Data size as a fraction of the seed's (1 = 20M products, ~50M stock rows, 1M movements; warehouses stay " +
      "2,500). The seed's ~11 GB becomes ~11 GB × dataScale.",
    { min: 0, aboveMin: true, max: 4 },
  ),
  randomSeed: number("setseed() value for the generated data, in [-1, 1] (the seed's repository: 0.42).", {
    min: -1,
    max: 1,
  }),
  indexLevels: listOf(INDEX_LEVELS, "Index counts to run, from 7, 14, 21, 28, 39 (the seed: all five).", {
    repeated: "refuse",
    item: "level",
    order: "ascending",
    hint: "the seed's levels",
    type: "number[]",
  }),
  repeats: integer("Rounds per level; rounds go through all levels before repeating."),
  maxRepeats: integer(
    "The adaptive design: while claim (1) or (2) is inconclusive after `repeats` rounds, add one more round of " +
      "every level, up to `maxRepeats` and while the run has taken less than `budgetSeconds` (at the pace so " +
      "far). The run records which stopped it. `maxRepeats = repeats`: no adding.",
  ),
  budgetSeconds: integer("Seconds the run may take before the adaptive design adds no more rounds."),
  clients: integer("pgbench clients, -c (the seed: -c 16 -j 8)."),
  threads: integer("pgbench threads (-j), at most `clients`."),
  durationSeconds: integer("Seconds per round (the seed: 300 to 7,200)."),
  maxTries: integer("pgbench --max-tries (1 = the seed's: a deadlock aborts the client; more retries it)."),
  sharedBuffersMB: integer(
    "shared_buffers, MB (the seed's held its whole data set: 64 GB for ~11 GB, 1 TB RAM); below memoryGiB.",
  ),
  maintenanceWorkMemMB: integer("maintenance_work_mem, MB (index builds)."),
  maxWalSizeGB: integer(
    "max_wal_size, GB (the seed's 200 GB and checkpoint_timeout 30 min kept checkpoints out of its rounds).",
  ),
  checkpointTimeoutMin: integer("checkpoint_timeout, minutes."),
});
export type OverIndexingParams = ParamsOf<typeof OverIndexingParams>;

const SEED = {
  target: "auto",
  randomSeed: 0.42,
  indexLevels: [...INDEX_LEVELS],
  clients: 16,
  threads: 8,
  maxTries: 1,
  maintenanceWorkMemMB: 256,
  maxWalSizeGB: 16,
  checkpointTimeoutMin: 30,
  cpus: 2,
} as const;

export const OVER_INDEXING_PROFILES: Readonly<Record<ProfileName, OverIndexingParams>> = {
  smoke: {
    ...SEED,
    dataScale: 0.0005,
    repeats: 1,
    maxRepeats: 1,
    budgetSeconds: 120,
    clients: 4,
    threads: 2,
    durationSeconds: 2,
    sharedBuffersMB: 256,
    memoryGiB: 2,
  },
  // The notebook's question (TPS against the index count) at 1 % of the seed's data and short rounds,
  // not any claim's regime: (2), (4) and (5) need the seed's data, memory and transactions. Five
  // rounds are the fewest whose paired interval covers its median ≥ 90 %; with the looks sharing that
  // 90 % (stats/adaptive lookPlan) a second look after 5 needs 9 rounds, so a cap of 8 adds none.
  default: {
    ...SEED,
    dataScale: 0.01,
    repeats: 5,
    maxRepeats: 8,
    budgetSeconds: 330,
    durationSeconds: 6,
    sharedBuffersMB: 1024,
    memoryGiB: 4,
  },
  // The seed's data and its shortest round (5 minutes); 5 rounds, 8 while (1) or (2) is undecided.
  full: {
    ...SEED,
    dataScale: 1,
    repeats: 5,
    maxRepeats: 8,
    budgetSeconds: 86_400,
    durationSeconds: 300,
    sharedBuffersMB: 12288,
    maintenanceWorkMemMB: 2048,
    maxWalSizeGB: 64,
    memoryGiB: 16,
  },
};

/** Checks a profile's values merged with a reader's overrides (each as declared, then with each other). */
export function checkParams(given: OverIndexingParams, overrides: Partial<OverIndexingParams>): OverIndexingParams {
  const p = OverIndexingParams.check(given);
  if (p.dataScale * 20_000_000 < 1000)
    throw new ParameterError(`dataScale ${p.dataScale} gives fewer than 1,000 products; use at least 0.00005`);
  if (p.sharedBuffersMB >= p.memoryGiB * 1024)
    throw new ParameterError(
      `sharedBuffersMB (${p.sharedBuffersMB}) must be below the server's memory limit memoryGiB (${p.memoryGiB} GiB)`,
    );
  return { ...p, ...repeatsWithCap(p, overrides), ...clientsAndThreads(p) };
}
