/**
 * The engines the lab runs: one closed list and what every layer may ask of an engine by its name
 * (how to call it, where its external URI is read from, whether a run may go on without it).
 * An engine name that is not in the list is refused here, before anything starts: it never
 * falls through to another engine's code.
 */
import { ParameterError } from "../params/validate";

export const ENGINES = ["postgresql", "mongodb"] as const;
export type Engine = (typeof ENGINES)[number];

export interface EngineFacts {
  /** The engine as a sentence names it: "PostgreSQL". */
  readonly label: string;
  /** The environment variable that holds an external server's URI (the lab's own prefix). */
  readonly uriVariable: string;
  /**
   * A variable of the same meaning that applications export for their own server (MONGODB_URI):
   * never read, since a user's shell would send the lab's writes to that server; only warned of.
   */
  readonly foreignUriVariable?: string;
  /**
   * A run reports the engine as unavailable rather than failing when no server of it can be had
   * (MongoDB: no image, no mongod and no URI on many machines).
   */
  readonly optional: boolean;
  /**
   * The server speaks PostgreSQL's catalog and statistics views (pg_stat_activity,
   * pg_stat_progress_*, pg_settings): the progress lines, the quietness probe and the run's
   * settings read them. An engine without them gets none of these, by this flag, not by its name.
   */
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

/** An engine name the lab does not know (a typo, or an engine it has no code for). */
export class UnknownEngineError extends ParameterError {}

export function isEngine(name: unknown): name is Engine {
  return typeof name === "string" && (ENGINES as readonly string[]).includes(name);
}

/** The name as an `Engine`, or an `UnknownEngineError` naming the engines there are. */
export function checkEngine(name: unknown): Engine {
  if (isEngine(name)) return name;
  throw new UnknownEngineError(
    `unknown engine ${JSON.stringify(name)}: the lab runs ${ENGINES.map((e) => `"${e}"`).join(", ")}`,
  );
}

/**
 * The warning for an engine whose application-wide URI variable is set while the lab's is not
 * (`MONGODB_URI` without `DBLAB_MONGODB_URI`), or undefined.
 */
export function foreignUriWarning(engine: Engine, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const { foreignUriVariable: foreign, uriVariable } = ENGINE_FACTS[engine];
  if (!foreign || !env[foreign] || env[uriVariable]) return undefined;
  return `${foreign} is set but not read: the lab uses an external ${ENGINE_FACTS[engine].label} server only from ${uriVariable}`;
}
