/**
 * Each engine's liveness probe, by the engine list: a new engine without one does not compile.
 * A probe opens a connection of its own, so a trial's busy or hung session never answers for it.
 */
import type { Engine, StartedServer } from "../targets/types";
import { mongoLiveness } from "./mongodb/liveness";
import { postgresLiveness } from "./postgres/liveness";
import type { LivenessAttempt } from "./liveness-attempt";

export const LIVENESS: Readonly<Record<Engine, (server: StartedServer, timeoutMs: number) => LivenessAttempt>> = {
  postgresql: postgresLiveness,
  mongodb: mongoLiveness,
};
