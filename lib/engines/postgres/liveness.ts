import { Client } from "pg";
import { handleErrors } from "../../runtime/error-events";
import { postgresClientConfig } from "../../targets/postgres-client";
import type { StartedServer } from "../../targets/types";
import type { LivenessAttempt } from "../liveness-attempt";

export function postgresLiveness(server: StartedServer, timeoutMs: number): LivenessAttempt {
  const client = new Client({
    ...postgresClientConfig(server.connection, {
      applicationName: "dblab-watchdog",
      connectionTimeoutMillis: timeoutMs,
    }),
    query_timeout: timeoutMs,
  });
  // The probe's own query rejects with the error: the listener keeps it from being uncaught.
  handleErrors(client, "watchdog probe");
  return {
    answered: (async () => {
      await client.connect();
      await client.query("SELECT 1");
    })(),
    close: () => client.end(),
  };
}
