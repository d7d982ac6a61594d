/** Parameters of notebook 03 (over-indexing), per profile, and their checks. */
import { TARGET_CHOICES, type TargetChoice } from "../../targets/select";
import { INDEX_LEVELS } from "./workload/schema";
import { withProfile, type ProfileName } from "../../params/profiles";
import {
  clientsAndThreads,
  oneOf,
  ParameterError,
  positiveInteger,
  rejectUnknownKeys,
  repeatsWithCap,
} from "../../params/validate";

export interface OverIndexingParams {
  /** Where the server runs: auto = docker if a daemon answers, else embedded. */
  readonly target: TargetChoice;
  /**
   * Data size as a fraction of the seed's (1 = 20M products, ~50M stock rows, 1M movements;
   * warehouses stay 2,500). The seed's ~11 GB becomes ~11 GB × dataScale.
   */
  readonly dataScale: number;
  /** setseed() value for the generated data, in [-1, 1] (the seed's repository: 0.42). */
  readonly randomSeed: number;
  /** Index counts to run, from 7, 14, 21, 28, 39 (the seed: all five). */
  readonly indexLevels: readonly number[];
  /** Rounds per level; rounds go through all levels before repeating. */
  readonly repeats: number;
  /**
   * The adaptive design: while claim (1) or (2) is inconclusive after `repeats` rounds, add one more
   * round of every level, up to `maxRepeats` and while the run has taken less than `budgetSeconds`
   * (at the pace so far). The run records which stopped it. `maxRepeats = repeats`: no adding.
   */
  readonly maxRepeats: number;
  /** Seconds the run may take before the adaptive design adds no more rounds. */
  readonly budgetSeconds: number;
  /** pgbench clients, -c (the seed: -c 16 -j 8). */
  readonly clients: number;
  /** pgbench threads (-j), at most `clients`. */
  readonly threads: number;
  /** Seconds per round (the seed: 300 to 7,200). */
  readonly durationSeconds: number;
  /** pgbench --max-tries (1 = the seed's: a deadlock aborts the client; more retries it). */
  readonly maxTries: number;
  /** shared_buffers, MB (the seed's held its whole data set: 64 GB for ~11 GB, 1 TB RAM). */
  readonly sharedBuffersMB: number;
  /** maintenance_work_mem, MB (index builds). */
  readonly maintenanceWorkMemMB: number;
  /** max_wal_size, GB (the seed's 200 GB and checkpoint_timeout 30 min kept checkpoints out of its rounds). */
  readonly maxWalSizeGB: number;
  /** checkpoint_timeout, minutes. */
  readonly checkpointTimeoutMin: number;
  /** CPU and memory limits of a docker server. */
  readonly cpus: number;
  /** Memory limit of a docker server, GiB; above sharedBuffersMB. */
  readonly memoryGiB: number;
}

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
  // Five rounds (each level once per round, order rotated), so that a paired per-round interval covers
  // its median ≥ 90 % and claims 1, 2, 4b and 5b can be decided: the data size serves the notebook's
  // question, TPS against the index count, at 1 % of the seed's data (200k products, ~500k stock rows)
  // with 6 s rounds, the largest that keeps a default run to a few minutes here; the first round of a
  // level builds its indexes once, later rounds clone them. It is not chosen for any claim's regime:
  // (2), (4) and (5) need the seed's data, memory and transactions and are not tested at this scale.
  // While claim (1) or (2) straddles a margin, the adaptive design may add rounds up to maxRepeats. With
  // the looks sharing the stated 90 % (stats/adaptive lookPlan), a second look after 5 needs 9 rounds,
  // so a cap of 8 adds none: the run decides at its 5 planned rounds.
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
  // The seed's data (~11 GB, ~50 GB after rounds with 39 indexes) and its shortest round, 5 minutes;
  // 5 rounds, the fewest whose paired interval can decide (2) at the seed's scale, 8 while undecided.
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

const KNOWN = Object.keys(OVER_INDEXING_PROFILES.default);

function numberIn(name: string, value: unknown, min: number, max: number, exclusiveMin = false): number {
  if (
    typeof value !== "number" ||
    !Number.isFinite(value) ||
    value > max ||
    (exclusiveMin ? value <= min : value < min)
  ) {
    throw new ParameterError(
      `${name} must be a number ${exclusiveMin ? ">" : "≥"} ${min} and ≤ ${max}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export function overIndexingParams(profile: string, overrides: Partial<OverIndexingParams> = {}): OverIndexingParams {
  rejectUnknownKeys("03-over-indexing", overrides, KNOWN);
  const p = withProfile(OVER_INDEXING_PROFILES, profile, overrides);
  if (!Array.isArray(p.indexLevels) || p.indexLevels.length === 0) {
    throw new ParameterError(`indexLevels must be a non-empty list drawn from ${INDEX_LEVELS.join(", ")}`);
  }
  const levels = p.indexLevels.map((v, i) => {
    if (!(INDEX_LEVELS as readonly unknown[]).includes(v)) {
      throw new ParameterError(
        `indexLevels[${i}] must be one of ${INDEX_LEVELS.join(", ")} (the seed's levels), got ${JSON.stringify(v)}`,
      );
    }
    return v as number;
  });
  if (new Set(levels).size !== levels.length)
    throw new ParameterError(`indexLevels lists a level twice: ${levels.join(", ")}`);
  const { repeats, maxRepeats } = repeatsWithCap(p, overrides);
  const { clients, threads } = clientsAndThreads(p);
  const dataScale = numberIn("dataScale", p.dataScale, 0, 4, true);
  if (dataScale * 20_000_000 < 1000) {
    throw new ParameterError(`dataScale ${dataScale} gives fewer than 1,000 products; use at least 0.00005`);
  }
  const sharedBuffersMB = positiveInteger("sharedBuffersMB", p.sharedBuffersMB);
  const memoryGiB = positiveInteger("memoryGiB", p.memoryGiB);
  if (sharedBuffersMB >= memoryGiB * 1024) {
    throw new ParameterError(
      `sharedBuffersMB (${sharedBuffersMB}) must be below the server's memory limit memoryGiB (${memoryGiB} GiB)`,
    );
  }
  return {
    target: oneOf("target", p.target, TARGET_CHOICES),
    dataScale,
    randomSeed: numberIn("randomSeed", p.randomSeed, -1, 1),
    indexLevels: [...levels].sort((a, b) => a - b),
    repeats,
    maxRepeats,
    budgetSeconds: positiveInteger("budgetSeconds", p.budgetSeconds),
    clients,
    threads,
    durationSeconds: positiveInteger("durationSeconds", p.durationSeconds),
    maxTries: positiveInteger("maxTries", p.maxTries),
    sharedBuffersMB,
    maintenanceWorkMemMB: positiveInteger("maintenanceWorkMemMB", p.maintenanceWorkMemMB),
    maxWalSizeGB: positiveInteger("maxWalSizeGB", p.maxWalSizeGB),
    checkpointTimeoutMin: positiveInteger("checkpointTimeoutMin", p.checkpointTimeoutMin),
    cpus: positiveInteger("cpus", p.cpus),
    memoryGiB,
  };
}
