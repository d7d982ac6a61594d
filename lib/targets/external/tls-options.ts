/**
 * libpq's sslmode as node-postgres options: `verify-full` checks chain and host name, `verify-ca` the
 * chain, `require` nothing unless a root certificate is present (then as verify-ca); `prefer` and
 * `allow` encrypt unchecked when offered.
 */
import fs from "node:fs";
import type { ConnectionOptions } from "node:tls";
import { ParameterError } from "../../params/validate";
import type { TransportSecurity } from "../types";
import type { PostgresSettings } from "./conninfo";

export interface TlsPlan {
  /** node-postgres's `ssl`: false for plaintext. */
  readonly ssl: false | ConnectionOptions;
  readonly certificate: TransportSecurity["certificate"];
}

function read(file: string, keyword: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new ParameterError(`cannot read ${keyword} "${file}": ${(error as Error).message}`, { cause: error });
  }
}

/** The TLS options for `s`; `plaintextFirst` (allow on a loopback host) sends no TLS. */
export function tlsPlan(s: PostgresSettings): TlsPlan {
  if (s.sslMode === "disable" || s.sslMode === "allow" || s.host.startsWith("/")) {
    // No TLS over a Unix socket; allow tries plaintext first (to another host it is refused earlier).
    return { ssl: false, certificate: "none" };
  }
  const base: ConnectionOptions = {};
  if (s.sslCert) base.cert = read(s.sslCert, "sslcert");
  if (s.sslKey) base.key = read(s.sslKey, "sslkey");
  if (s.sslMinProtocolVersion) base.minVersion = s.sslMinProtocolVersion as ConnectionOptions["minVersion"];
  if (s.sslMaxProtocolVersion) base.maxVersion = s.sslMaxProtocolVersion as ConnectionOptions["maxVersion"];
  // "system": Node's bundled roots, i.e. `ca` unset.
  const ca = s.sslRootCert && s.sslRootCert !== "system" ? read(s.sslRootCert, "sslrootcert") : undefined;
  const chainOnly = { ...base, ca, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  switch (s.sslMode) {
    case "prefer":
      return { ssl: { ...base, rejectUnauthorized: false }, certificate: "not verified" };
    case "require":
      return s.sslRootCert
        ? { ssl: chainOnly, certificate: "chain verified, host name not checked" }
        : { ssl: { ...base, rejectUnauthorized: false }, certificate: "not verified" };
    case "verify-ca":
    case "verify-full":
      if (!s.sslRootCert) {
        throw new ParameterError(
          `sslmode=${s.sslMode} needs the certificate of the CA that signed the server's: root certificate file ` +
            `"~/.postgresql/root.crt" does not exist. Name one with sslrootcert=/path/ca.pem (or PGSSLROOTCERT), ` +
            `use the system's trusted roots with sslrootcert=system, or change sslmode to stop verifying the server`,
        );
      }
      return s.sslMode === "verify-ca"
        ? { ssl: chainOnly, certificate: "chain verified, host name not checked" }
        : { ssl: { ...base, ca, rejectUnauthorized: true }, certificate: "chain and host name verified" };
  }
}

/** libpq's variables for a child program to make the same connection, no password. */
export function libpqEnvironment(s: PostgresSettings): Record<string, string> {
  const env: Record<string, string> = { PGSSLMODE: s.sslMode };
  const set = (name: string, value: string | number | undefined) => {
    if (value !== undefined) env[name] = String(value);
  };
  set("PGSSLROOTCERT", s.sslRootCert);
  set("PGSSLCERT", s.sslCert);
  set("PGSSLKEY", s.sslKey);
  set("PGSSLMINPROTOCOLVERSION", s.sslMinProtocolVersion);
  set("PGSSLMAXPROTOCOLVERSION", s.sslMaxProtocolVersion);
  set("PGOPTIONS", s.options);
  set("PGCONNECT_TIMEOUT", s.connectTimeoutSeconds);
  set("PGCLIENTENCODING", s.clientEncoding);
  // An older libpq ignores PGCHANNELBINDING/PGSSLNEGOTIATION and negotiates TLS the usual way.
  set("PGCHANNELBINDING", s.channelBinding);
  if (s.sslNegotiation === "direct") set("PGSSLNEGOTIATION", "direct");
  return env;
}

/** e.g. "TLSv1.3, certificate chain and host name verified (sslmode=verify-full)". */
export function transportText(t: TransportSecurity): string {
  return t.tls
    ? `${t.version ?? "TLS"}, certificate ${t.certificate} (sslmode=${t.sslMode})`
    : `plaintext (sslmode=${t.sslMode} from the ${t.sslModeSource})`;
}
