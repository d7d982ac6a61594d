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
  /** The environment variable that holds an external server's URI. */
  readonly uriVariable: string;
  /**
   * A run reports the engine as unavailable rather than failing when no server of it can be had
   * (MongoDB: no image, no mongod and no URI on many machines).
   */
  readonly optional: boolean;
}

export const ENGINE_FACTS: Readonly<Record<Engine, EngineFacts>> = {
  postgresql: { label: "PostgreSQL", uriVariable: "DBLAB_POSTGRES_URI", optional: false },
  mongodb: { label: "MongoDB", uriVariable: "MONGODB_URI", optional: true },
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
