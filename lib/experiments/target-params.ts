/**
 * The parameters every notebook shares, declared once (lib/params/declare.ts): where its servers run and,
 * for the notebooks whose servers may run in containers, their limits. A file of their own, so that a
 * params file reads them without loading the base (define.ts) and all it imports.
 */
import { integer, oneOf, type ParamsOf } from "../params/declare";
import { TARGET_CHOICES } from "../targets/select";

/** Where a notebook's servers run: every notebook's parameters start with it. */
export const TARGET_PARAMS = {
  target: oneOf(
    TARGET_CHOICES,
    "Where the servers run: auto = embedded, unless a URI (DBLAB_POSTGRES_URI, DBLAB_MONGODB_URI) or a " +
      "Docker engine on another host is named; or embedded, docker, external (docs/targets.md).",
  ),
};
export type TargetParams = ParamsOf<typeof TARGET_PARAMS>;

/** A Docker server's limits, for the notebooks whose servers may run in containers. */
export const LIMIT_PARAMS = {
  ...TARGET_PARAMS,
  cpus: integer("CPU limit of each Docker server."),
  memoryGiB: integer("Memory limit of each Docker server, GiB."),
};
