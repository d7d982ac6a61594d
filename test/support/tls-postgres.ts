/**
 * A PostgreSQL to point the lab at as a user points it at a managed server: an embedded one with
 * ssl=on and a certificate from a CA made here (test-ca.ts), reached by URI with sslmode=verify-full,
 * pg_stat_statements preloaded (what 03 and 04 need of a server they are pointed at: their
 * pre-flight refuses one without it).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EmbeddedPostgresTarget, type EmbeddedPostgresServer } from "../../lib/targets/embedded/embedded-postgres";
import { makeTestCa } from "./test-ca";

export interface TlsPostgres {
  readonly server: EmbeddedPostgresServer;
  /** postgresql://postgres:…@127.0.0.1:<port>/postgres?sslmode=verify-full&sslrootcert=… */
  readonly uri: string;
  /** 127.0.0.1:<port>, as the lab's messages name it. */
  readonly address: string;
  readonly password: string;
  /** Stops the server and removes its certificates. */
  stop(): Promise<void>;
}

export async function startTlsPostgres(name: string): Promise<TlsPostgres> {
  // Not under a root-only temporary folder: the server reads its certificate as its own OS user.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `dblab-${name}-`));
  const certificates = makeTestCa(dir);
  const server = await new EmbeddedPostgresTarget()
    .start({
      engine: "postgresql",
      name,
      settings: {
        ssl: "on",
        ssl_cert_file: certificates.serverCert,
        ssl_key_file: certificates.serverKey,
        shared_preload_libraries: "pg_stat_statements",
      },
    })
    .catch((error: unknown) => {
      fs.rmSync(dir, { recursive: true, force: true });
      throw error;
    });
  const { port, password } = server.connection;
  return {
    server,
    uri:
      `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres` +
      `?sslmode=verify-full&sslrootcert=${encodeURIComponent(certificates.ca)}`,
    address: `127.0.0.1:${port}`,
    password,
    stop: async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
