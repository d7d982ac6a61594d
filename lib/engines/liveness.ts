/** A probe opens its own connection, so a trial's hung session never answers for it. */
import type { Engine, StartedServer } from "../targets/types";
import { mongoLiveness } from "./mongodb/liveness";
import { postgresLiveness } from "./postgres/liveness";
import type { LivenessAttempt } from "./liveness-attempt";

export const LIVENESS: Readonly<Record<Engine, (server: StartedServer, timeoutMs: number) => LivenessAttempt>> = {
  postgresql: postgresLiveness,
  mongodb: mongoLiveness,
};
