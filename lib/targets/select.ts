/**
 * `auto` is embedded unless the user named an external URI or a remote Docker engine; a local daemon
 * that merely answers is not a choice, so one command measures one system.
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
import { errorMessage } from "../runtime/error-message";

export type TargetChoice = "auto" | TargetKind;
export const TARGET_CHOICES: readonly TargetChoice[] = ["auto", ...TARGET_KINDS];

/** An optional engine is then unavailable. */
export class MissingUriError extends ParameterError {}

export interface TargetDecision {
  readonly kind: TargetKind;
  readonly reason: string;
  /** The lab adds nothing around it. */
  readonly asIs: boolean;
}

const EMBEDDED_UNAVAILABLE: Readonly<Record<Engine, () => string | undefined>> = {
  postgresql: () => embeddedPostgresUnavailable(),
  mongodb: () => undefined,
};

const warned = new Set<string>();

/** Without asking any daemon. */
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
  // Not a quiet fallback to the embedded target.
  let endpoint: DockerEndpoint;
  try {
    endpoint = currentEndpoint();
    placementFor(endpoint);
  } catch (error) {
    throw new ParameterError(errorMessage(error), { cause: error });
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
    // Falling back to this machine would measure the wrong host.
    if (!(await dockerAvailable())) {
      throw new ParameterError(`the Docker engine${where} does not answer; the lab does not fall back to this machine`);
    }
    return decided("docker", `${endpoint.source} names the Docker engine at ${endpoint.host}`);
  }
  // Whether a daemon answers must not change what is measured.
  return embedded(
    engine,
    'the default (nothing names Docker or a URI; target "docker" or DBLAB_TARGET=docker runs it in Docker)',
  );

  function embedded(engine: Engine, reason: string): TargetDecision {
    const missing = EMBEDDED_UNAVAILABLE[engine]();
    if (missing) throw new ParameterError(missing);
    return decided("embedded", reason);
  }
}

export interface TargetOptions {
  readonly cpus?: number;
  readonly memoryBytes?: number;
  readonly onProgress?: (message: string) => void;
  readonly endpoint?: DockerEndpoint;
  readonly baseDir?: string;
  readonly onNote?: (message: string) => void;
}

const EMBEDDED: Readonly<Record<Engine, (options: TargetOptions) => Promise<Target>>> = {
  postgresql: async (options) => new EmbeddedPostgresTarget({ baseDir: options.baseDir }),
  mongodb: async () => {
    const { EmbeddedMongoTarget } = await import("./embedded/embedded-mongo");
    return new EmbeddedMongoTarget();
  },
};

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
