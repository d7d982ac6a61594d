/** What the lab left on a PostgreSQL server it was pointed at: its databases, templates and clones. */
import { Client } from "pg";
import type { StartedServer } from "../../lib/targets/types";

/** The names of the server's databases that start with `dblab` (every name the lab gives one). */
export async function labDatabases(server: Pick<StartedServer, "connection">): Promise<string[]> {
  const c = new Client(server.connection);
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'dblab%'");
    return rows.map((r) => r.datname);
  } finally {
    await c.end();
  }
}
