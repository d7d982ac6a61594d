/**
 * The engines the lab runs: one closed list and what every layer may ask of an engine by name.
 * An unknown name is refused here, so it never falls through to another engine's code.
 */
import { ParameterError } from "../params/validate";

export const ENGINES = ["postgresql", "mongodb"] as const;
export type Engine = (typeof ENGINES)[number];

export interface EngineFacts {
  /** e.g. "PostgreSQL". */
  readonly label: string;
  /** The lab's environment variable for an external server's URI. */
  readonly uriVariable: string;
  /**
   * The application-wide variable of the same meaning (MONGODB_URI): never read, so a user's shell cannot redirect the
   * lab's writes.
   */
  readonly foreignUriVariable?: string;
  /** A run reports the engine as unavailable rather than failing when no server of it can be had. */
  readonly optional: boolean;
  /** Has PostgreSQL's catalog and statistics views (progress lines, quietness probe, settings). */
  readonly postgresCatalog: boolean;
}

export const ENGINE_FACTS: Readonly<Record<Engine, EngineFacts>> = {
  postgresql: { label: "PostgreSQL", uriVariable: "DBLAB_POSTGRES_URI", optional: false, postgresCatalog: true },
  mongodb: {
    label: "MongoDB",
    uriVariable: "DBLAB_MONGODB_URI",
    foreignUriVariable: "MONGODB_URI",
    optional: true,
    postgresCatalog: false,
  },
};

export class UnknownEngineError extends ParameterError {}

export function isEngine(name: unknown): name is Engine {
  return typeof name === "string" && (ENGINES as readonly string[]).includes(name);
}

export function checkEngine(name: unknown): Engine {
  if (isEngine(name)) return name;
  throw new UnknownEngineError(
    `unknown engine ${JSON.stringify(name)}: the lab runs ${ENGINES.map((e) => `"${e}"`).join(", ")}`,
  );
}

/** The warning for an application-wide URI variable set while the lab's is not, or undefined. */
export function foreignUriWarning(engine: Engine, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const { foreignUriVariable: foreign, uriVariable } = ENGINE_FACTS[engine];
  if (!foreign || !env[foreign] || env[uriVariable]) return undefined;
  return `${foreign} is set but not read: the lab uses an external ${ENGINE_FACTS[engine].label} server only from ${uriVariable}`;
}
