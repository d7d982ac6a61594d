/** MongoDB's liveness probe: `ping` on a client of its own, every driver timeout at the bound. */
import { MongoClient } from "mongodb";
import { handleErrors } from "../../runtime/error-events";
import type { StartedServer } from "../../targets/types";
import type { LivenessAttempt } from "../liveness-attempt";

export function mongoLiveness(server: StartedServer, timeoutMs: number): LivenessAttempt {
  const client = new MongoClient(server.uri, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: timeoutMs,
    appName: "dblab-watchdog",
  });
  handleErrors(client, "watchdog probe");
  return {
    answered: client
      .db("admin")
      .command({ ping: 1 })
      .then(() => undefined),
    close: () => client.close(true),
  };
}
