/** MongoDB's liveness probe: `ping` on a client of its own, every driver timeout at the bound. */
import type { MongoClient } from "mongodb";
import { handleErrors } from "../../runtime/error-events";
import type { StartedServer } from "../../targets/types";
import type { LivenessAttempt } from "../liveness-attempt";

export function mongoLiveness(server: StartedServer, timeoutMs: number): LivenessAttempt {
  // Loaded on the first probe, so a PostgreSQL-only run never loads the driver.
  const client: Promise<MongoClient> = import("mongodb").then(({ MongoClient }) => {
    const c = new MongoClient(server.uri, {
      serverSelectionTimeoutMS: timeoutMs,
      connectTimeoutMS: timeoutMs,
      socketTimeoutMS: timeoutMs,
      appName: "dblab-watchdog",
    });
    handleErrors(c, "watchdog probe");
    return c;
  });
  return {
    answered: client.then((c) => c.db("admin").command({ ping: 1 })).then(() => undefined),
    close: () => client.then((c) => c.close(true)),
  };
}
