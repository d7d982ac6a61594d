/**
 * Which image a docker target runs: the pinned official image when the engine has it; else, for
 * PostgreSQL, the offline stand-in; else an error naming the pull command. The lab pulls only when
 * the user says so, since a pull sends the registry's name to an outside resolver.
 */
import type Docker from "dockerode";
import type { Engine } from "../types";
import { errorMessage } from "../../runtime/error-message";
import { dockerClient } from "./docker-client";
import type { ImageProgressCallback } from "./image-progress";
import { ensureStandInImage } from "./standin-image";

export type { ImageProgress, ImageProgressCallback } from "./image-progress";

/** Pinned so that every run measures the same server build. */
export const POSTGRES_IMAGE = "postgres:17.6";
export const MONGO_IMAGE = "mongo:8.0.16";
export const OFFICIAL_IMAGES: Readonly<Record<Engine, string>> = { postgresql: POSTGRES_IMAGE, mongodb: MONGO_IMAGE };

const HAS_STAND_IN: Readonly<Record<Engine, boolean>> = { postgresql: true, mongodb: false };

export interface ResolvedImage {
  readonly image: string;
  readonly standIn: boolean;
}

/** As `docker run --pull never|missing`; "never" by default, "missing" only when the user asks (DBLAB_PULL). */
export const PULL_POLICIES = ["never", "missing"] as const;
export type PullPolicy = (typeof PULL_POLICIES)[number];

/** DBLAB_PULL; a bad value is refused before anything starts. */
export function pullPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): PullPolicy {
  const value = env.DBLAB_PULL;
  if (value === undefined || value === "") return "never";
  const known: readonly string[] = PULL_POLICIES;
  if (!known.includes(value)) {
    throw new Error(`DBLAB_PULL must be one of ${PULL_POLICIES.join(", ")}, got "${value}"`);
  }
  return value as PullPolicy;
}

export interface ResolveOptions {
  readonly forceStandIn?: boolean;
  readonly pull?: PullPolicy;
  readonly docker?: Docker;
}

async function imageExists(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw error;
  }
}

interface PullMessage {
  readonly status?: string;
  readonly id?: string;
  readonly progressDetail?: { readonly current?: number; readonly total?: number };
  readonly error?: string;
  readonly errorDetail?: { readonly message?: string };
}

async function pull(docker: Docker, image: string, onProgress?: ImageProgressCallback): Promise<void> {
  const stream = await docker.pull(image);
  const errors: string[] = [];
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null) => (error ? reject(error) : resolve()),
      (message: PullMessage) => {
        const failure = message.errorDetail?.message ?? message.error;
        if (failure) errors.push(failure);
        if (message.status) {
          onProgress?.({
            phase: "pull",
            image,
            message: message.status,
            layer: message.id,
            current: message.progressDetail?.current,
            total: message.progressDetail?.total,
          });
        }
      },
    );
  });
  // A pull can end "successfully" as a stream whose last message is an error.
  if (errors.length > 0) throw new Error(errors.join("; "));
}

/** Pull failures remembered per engine for the process, so an offline run does not ask again. */
const failedPulls = new WeakMap<Docker, Map<string, string>>();

function pullAdvice(official: string): string {
  return `docker pull ${official} where a registry is reachable (or docker save / docker load to carry it over), or let the lab pull it: DBLAB_PULL=missing`;
}

/** The image to run for `engine` (official, pulled if allowed, or the stand-in); throws naming the pull command. */
export async function resolveImage(
  engine: Engine,
  onProgress?: ImageProgressCallback,
  options: ResolveOptions = {},
): Promise<ResolvedImage> {
  const docker = options.docker ?? dockerClient();
  const official = OFFICIAL_IMAGES[engine];
  if (HAS_STAND_IN[engine] && options.forceStandIn) {
    return { image: (await ensureStandInImage(onProgress, docker)).image, standIn: true };
  }
  if (await imageExists(docker, official)) return { image: official, standIn: false };

  const failed = failedPulls.get(docker) ?? new Map<string, string>();
  failedPulls.set(docker, failed);
  const policy = options.pull ?? pullPolicyFromEnv();
  let missing = `${official} is not on this Docker engine and the lab does not pull it (DBLAB_PULL=never, the default)`;
  if (policy === "missing") {
    let pullError = failed.get(official);
    if (pullError === undefined) {
      try {
        await pull(docker, official, onProgress);
        return { image: official, standIn: false };
      } catch (error) {
        pullError = errorMessage(error).trim();
        failed.set(official, pullError);
        onProgress?.({ phase: "pull", image: official, message: `cannot be pulled: ${pullError}` });
      }
    }
    missing = `${official} is not on this Docker engine and could not be pulled (${pullError})`;
  }

  if (HAS_STAND_IN[engine]) {
    onProgress?.({ phase: "build", image: official, message: `${missing}: using the offline stand-in instead` });
    try {
      return { image: (await ensureStandInImage(onProgress, docker)).image, standIn: true };
    } catch (error) {
      throw new Error(
        `${missing}, and the offline stand-in image could not be built (${errorMessage(error).trim()}). ` +
          `Either ${pullAdvice(official)}; or install the stand-in's parts (npm run setup installs busybox-static).`,
        { cause: error },
      );
    }
  }
  throw new Error(
    `MongoDB needs the ${official} image: ${missing}. Either ${pullAdvice(official)}; ` +
      "or put a mongod binary on PATH and use the embedded target, " +
      "or set DBLAB_MONGODB_URI to use an external server.",
  );
}
