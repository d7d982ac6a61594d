/**
 * Which target runs a server. `auto` is the embedded server unless the user named something else:
 * an external URI (DBLAB_POSTGRES_URI, DBLAB_MONGODB_URI), or a Docker engine on another host
 * (DOCKER_HOST, DOCKER_CONTEXT or the CLI's current context pointing elsewhere than this machine).
 * A Docker daemon that merely answers on this machine is not a choice: one command measures one
 * system whatever happens to run beside it. Overridable per notebook (the `target` parameter) and
 * by the DBLAB_TARGET variable.
 */
import { ParameterError } from "../params/validate";
import { currentEndpoint, dockerAvailable } from "./docker/docker-client";
import type { DockerEndpoint } from "./docker/endpoint";
import { placementFor } from "./docker/routes";
import { EmbeddedPostgresTarget } from "./embedded/embedded-postgres";
import { embeddedPostgresUnavailable } from "./embedded/postgres-binaries";
import { ExternalTarget } from "./external/external-target";
import { checkEngine, ENGINE_FACTS, foreignUriWarning, type Engine } from "./engines";
import { TARGET_KINDS, type Target, type TargetKind } from "./types";

export type TargetChoice = "auto" | TargetKind;
export const TARGET_CHOICES: readonly TargetChoice[] = ["auto", ...TARGET_KINDS];

/** Target "external" for an engine whose URI variable is unset: for an optional engine, that engine is unavailable. */
export class MissingUriError extends ParameterError {}

export interface TargetDecision {
  readonly kind: TargetKind;
  /** Why this target, in a sentence for the notebook's output. */
  readonly reason: string;
  /**
   * The server is the user's, used as it is (an external URI): the lab starts and restarts nothing
   * and puts nothing around it (no delay links, no standbys). An experiment that would add them asks
   * this, not the kind.
   */
  readonly asIs: boolean;
}

/**
 * Why an engine's embedded server cannot run on this machine at all, or undefined. MongoDB's
 * (a mongod on PATH) is looked for when it starts: an optional engine is then reported unavailable.
 */
const EMBEDDED_UNAVAILABLE: Readonly<Record<Engine, () => string | undefined>> = {
  postgresql: () => embeddedPostgresUnavailable(),
  mongodb: () => undefined,
};

/** Warnings said once per process (a notebook decides a target per server). */
const warned = new Set<string>();

/**
 * The kind `decideTarget` will choose, said before a run without asking any daemon: for what a plan
 * states up front (the disk pre-flight, the server's CPUs). A choice it would refuse is given as
 * the kind asked for; the refusal comes when the run starts.
 */
export function plannedTargetKind(engine: Engine, choice: TargetChoice = "auto"): TargetKind {
  const fromEnv = process.env.DBLAB_TARGET;
  const wanted =
    fromEnv && (TARGET_CHOICES as readonly string[]).includes(fromEnv) ? (fromEnv as TargetChoice) : choice;
  if (wanted !== "auto") return wanted;
  if (process.env[ENGINE_FACTS[engine].uriVariable]) return "external";
  try {
    return currentEndpoint().local ? "embedded" : "docker";
  } catch {
    return "docker";
  }
}

/** Decides the target kind for an engine. Throws before anything starts when the choice cannot work. */
export async function decideTarget(engine: Engine, choice: TargetChoice = "auto"): Promise<TargetDecision> {
  checkEngine(engine);
  const fromEnv = process.env.DBLAB_TARGET;
  if (fromEnv && !(TARGET_CHOICES as readonly string[]).includes(fromEnv)) {
    throw new ParameterError(`DBLAB_TARGET must be one of ${TARGET_CHOICES.join(", ")}; got "${fromEnv}"`);
  }
  const wanted = (fromEnv as TargetChoice | undefined) ?? choice;
  const asked = fromEnv ? `DBLAB_TARGET=${fromEnv}` : `target "${choice}" asked for`;
  const uriVariable = ENGINE_FACTS[engine].uriVariable;
  const warning = foreignUriWarning(engine);
  if (warning && !warned.has(warning)) {
    warned.add(warning);
    console.warn(`warning: ${warning}`);
  }
  const decided = (kind: TargetKind, reason: string): TargetDecision => ({
    kind,
    reason: warning ? `${reason}; ${warning}` : reason,
    asIs: kind === "external",
  });
  if (wanted === "external" || (wanted === "auto" && process.env[uriVariable])) {
    if (!process.env[uriVariable]) {
      throw new MissingUriError(`target "external" needs the server's URI in ${uriVariable}: no ${uriVariable} given`);
    }
    return decided("external", wanted === "auto" ? `${uriVariable} is set` : `${asked}, ${uriVariable} is set`);
  }
  if (wanted === "embedded") return embedded(engine, asked);
  // An engine named by DOCKER_HOST or a context that the lab must not use is refused here, before
  // anything starts, rather than quietly replaced by the embedded target.
  let endpoint: DockerEndpoint;
  try {
    endpoint = currentEndpoint();
    placementFor(endpoint);
  } catch (error) {
    throw new ParameterError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  const where = endpoint.local ? "" : ` (${endpoint.host}, from ${endpoint.source})`;
  if (wanted === "docker") {
    if (!(await dockerAvailable())) {
      throw new ParameterError(
        `target "docker" was asked for, but no Docker daemon answers${where} ` +
          '(start Docker, set DOCKER_HOST or DOCKER_CONTEXT, or use target "embedded")',
      );
    }
    return decided("docker", `${asked}${where}`);
  }
  if (!endpoint.local) {
    // The user pointed the lab at a remote engine: falling back to this machine would measure the wrong host.
    if (!(await dockerAvailable())) {
      throw new ParameterError(`the Docker engine${where} does not answer; the lab does not fall back to this machine`);
    }
    return decided("docker", `${endpoint.source} names the Docker engine at ${endpoint.host}`);
  }
  // No daemon is asked here: whether one answers must not change what is measured.
  return embedded(
    engine,
    'the default (nothing names Docker or a URI; target "docker" or DBLAB_TARGET=docker runs it in Docker)',
  );

  function embedded(engine: Engine, reason: string): TargetDecision {
    // Said before anything starts, in one line: on a platform npm had no package for, the way on.
    const missing = EMBEDDED_UNAVAILABLE[engine]();
    if (missing) throw new ParameterError(missing);
    return decided("embedded", reason);
  }
}

export interface TargetOptions {
  readonly cpus?: number;
  readonly memoryBytes?: number;
  readonly onProgress?: (message: string) => void;
  /** Docker: an engine the user named for this server (05's `hosts`) instead of DOCKER_HOST's. */
  readonly endpoint?: DockerEndpoint;
  /** Embedded PostgreSQL: parent of the server's directory (05 puts its quorum cluster on /dev/shm). */
  readonly baseDir?: string;
  /** External: where the lines about databases dropped for dead runs go (default: stdout). */
  readonly onNote?: (message: string) => void;
}

/** Each engine's embedded target; MongoDB's is loaded only when asked for. */
const EMBEDDED: Readonly<Record<Engine, (options: TargetOptions) => Promise<Target>>> = {
  postgresql: async (options) => new EmbeddedPostgresTarget({ baseDir: options.baseDir }),
  mongodb: async () => {
    const { EmbeddedMongoTarget } = await import("./embedded/embedded-mongo");
    return new EmbeddedMongoTarget();
  },
};

/** The target of `kind` for `engine`; an engine name the lab does not know is refused before anything starts. */
export async function createTarget(engine: Engine, kind: TargetKind, options: TargetOptions = {}): Promise<Target> {
  const known = checkEngine(engine);
  switch (kind) {
    case "external":
      return new ExternalTarget(process.env[ENGINE_FACTS[known].uriVariable] ?? "", { onNote: options.onNote });
    case "docker": {
      const { DockerTarget } = await import("./docker/docker-target");
      return new DockerTarget(options);
    }
    case "embedded":
      return EMBEDDED[known](options);
  }
}
