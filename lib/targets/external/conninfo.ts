/**
 * PostgreSQL connection strings read with libpq's rules and precedence, so what works in `psql "$URI"`
 * works in the lab. A keyword it cannot honour is refused, never dropped: an ignored setting can turn
 * a TLS requirement into plaintext.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parse as parseUriAuthority } from "pg-connection-string";
import pgpassHelper from "pgpass/lib/helper";
import { ParameterError } from "../../params/validate";

export const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] as const;
export type SslMode = (typeof SSL_MODES)[number];

export type SettingSource = "connection string" | "service file" | "environment" | "default";

/** The keywords the lab honours, with libpq's environment variable for each. */
const HONOURED: Readonly<Record<string, string | undefined>> = {
  host: "PGHOST",
  port: "PGPORT",
  dbname: "PGDATABASE",
  user: "PGUSER",
  password: "PGPASSWORD",
  passfile: "PGPASSFILE",
  service: "PGSERVICE",
  sslmode: "PGSSLMODE",
  sslrootcert: "PGSSLROOTCERT",
  sslcert: "PGSSLCERT",
  sslkey: "PGSSLKEY",
  ssl_min_protocol_version: "PGSSLMINPROTOCOLVERSION",
  ssl_max_protocol_version: "PGSSLMAXPROTOCOLVERSION",
  application_name: "PGAPPNAME",
  fallback_application_name: undefined,
  connect_timeout: "PGCONNECT_TIMEOUT",
  options: "PGOPTIONS",
  client_encoding: "PGCLIENTENCODING",
  // node-postgres's enableChannelBinding prefers SCRAM-SHA-256-PLUS, never requires it.
  sslnegotiation: "PGSSLNEGOTIATION",
  channel_binding: "PGCHANNELBINDING",
};

/** libpq keywords the lab refuses: each changes how or to whom it connects. */
const NOT_HONOURED = new Set([
  "hostaddr",
  "require_auth",
  "keepalives",
  "keepalives_idle",
  "keepalives_interval",
  "keepalives_count",
  "tcp_user_timeout",
  "replication",
  "gssencmode",
  "sslcompression",
  "sslpassword",
  "sslcertmode",
  "sslcrl",
  "sslcrldir",
  "sslsni",
  "requirepeer",
  "krbsrvname",
  "gsslib",
  "gssdelegation",
  "target_session_attrs",
  "load_balance_hosts",
  "min_protocol_version",
  "max_protocol_version",
  "scram_client_key",
  "scram_server_key",
  "oauth_issuer",
  "oauth_client_id",
  "oauth_client_secret",
  "oauth_scope",
]);

/** URI query aliases libpq accepts (`ssl=true` means sslmode=require). */
const URI_ALIASES: Readonly<Record<string, string>> = { ssl: "sslmode" };

export interface PostgresSettings {
  /** A host name, IP address, or Unix-socket directory. */
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string | undefined;
  readonly passwordSource: SettingSource | "password file" | "none";
  readonly database: string;
  readonly sslMode: SslMode;
  /** Only "connection string" counts as the user asking for plaintext. */
  readonly sslModeSource: SettingSource;
  /** A file, or "system" (libpq ≥ 16); undefined: none found. */
  readonly sslRootCert: string | undefined;
  readonly sslCert: string | undefined;
  readonly sslKey: string | undefined;
  readonly sslMinProtocolVersion: string | undefined;
  readonly sslMaxProtocolVersion: string | undefined;
  readonly applicationName: string | undefined;
  readonly connectTimeoutSeconds: number | undefined;
  readonly options: string | undefined;
  readonly clientEncoding: string | undefined;
  /** libpq ≥ 17. */
  readonly sslNegotiation: "postgres" | "direct";
  /** "prefer" or "disable" (default none); "require" is refused, since node-postgres cannot enforce it. */
  readonly channelBinding: "disable" | "prefer" | undefined;
}

export function parseConnectionString(text: string): Map<string, string> {
  const trimmed = text.trim();
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return parseUri(trimmed);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    throw new ParameterError(
      `"${trimmed.replace(/:\/\/.*/, "://…")}" is not a PostgreSQL connection string (a URI starts with postgresql://)`,
    );
  }
  return parseKeywordValue(trimmed);
}

function checkKeyword(keyword: string, form: string): void {
  if (keyword in HONOURED) return;
  if (NOT_HONOURED.has(keyword)) {
    throw new ParameterError(
      `the connection setting "${keyword}" is not supported by the lab (its clients could not all honour it); remove it`,
    );
  }
  throw new ParameterError(`invalid ${form} "${keyword}" in the PostgreSQL connection string`);
}

function decodePercent(text: string, what: string): string {
  // libpq decodes %XX only; unlike a URL query, "+" stays a plus sign.
  try {
    return decodeURIComponent(text);
  } catch (error) {
    throw new ParameterError(`invalid percent-encoding in the connection URI's ${what}`, { cause: error });
  }
}

/** The URI form: the authority by pg-connection-string; path and query here, since it decodes "+" as a space. */
function parseUri(uri: string): Map<string, string> {
  const out = new Map<string, string>();
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)(\/[^?#]*)?(?:\?([^#]*))?(#.*)?$/i.exec(uri);
  if (!match)
    throw new ParameterError("the connection URI is malformed (expected postgresql://user@host:port/dbname?…)");
  const [, scheme, authority, pathPart, query] = match;
  const hostPart = authority.slice(authority.lastIndexOf("@") + 1);
  if (hostPart.includes(",")) {
    const hosts = hostPart.split(",").map((h) => h.replace(/:\d*$/, "") || "(empty)");
    throw new ParameterError(
      `the connection URI names ${hosts.length} hosts (${hosts.join(", ")}); the lab measures one server: name one host`,
    );
  }
  let parsed: ReturnType<typeof parseUriAuthority>;
  try {
    parsed = parseUriAuthority(`${scheme}${authority}/`);
  } catch (error) {
    throw new ParameterError(
      `the connection URI's host part "${hostPart}" is malformed (host, host:port or [IPv6]:port, port 1–65535)`,
      { cause: error },
    );
  }
  if (parsed.user) out.set("user", parsed.user);
  if (parsed.password) out.set("password", parsed.password);
  if (parsed.host) out.set("host", parsed.host);
  if (parsed.port) out.set("port", parsed.port);
  const database = (pathPart ?? "").replace(/^\//, "");
  if (database) out.set("dbname", decodePercent(database, "database name"));
  for (const pair of (query ?? "").split("&").filter(Boolean)) {
    const eq = pair.indexOf("=");
    if (eq < 0) throw new ParameterError(`the connection URI's query parameter "${pair}" has no "="`);
    let key = decodePercent(pair.slice(0, eq), "query");
    let value = decodePercent(pair.slice(eq + 1), "query");
    if (key in URI_ALIASES) {
      if (key === "ssl" && value !== "true") {
        throw new ParameterError(`the connection URI's "ssl=${value}" is not understood (libpq takes ssl=true only)`);
      }
      key = URI_ALIASES[key];
      value = "require";
    }
    checkKeyword(key, "URI query parameter");
    out.set(key, value);
  }
  return out;
}

/** The `key=value` form (no npm package parses it). */
function parseKeywordValue(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  const n = text.length;
  const skipSpace = () => {
    while (i < n && /\s/.test(text[i])) i++;
  };
  skipSpace();
  while (i < n) {
    const start = i;
    while (i < n && text[i] !== "=" && !/\s/.test(text[i])) i++;
    const keyword = text.slice(start, i);
    skipSpace();
    if (text[i] !== "=") {
      throw new ParameterError(`missing "=" after "${keyword}" in the connection string (expected key=value pairs)`);
    }
    i++;
    skipSpace();
    let value = "";
    if (text[i] === "'") {
      i++;
      let closed = false;
      while (i < n) {
        const c = text[i];
        if (c === "\\" && i + 1 < n) {
          value += text[i + 1];
          i += 2;
        } else if (c === "'") {
          i++;
          closed = true;
          break;
        } else {
          value += c;
          i++;
        }
      }
      if (!closed) throw new ParameterError(`unterminated quoted value for "${keyword}" in the connection string`);
    } else {
      while (i < n && !/\s/.test(text[i])) {
        if (text[i] === "\\" && i + 1 < n) i++;
        value += text[i];
        i++;
      }
    }
    checkKeyword(keyword, "connection option");
    out.set(keyword, value);
    skipSpace();
  }
  return out;
}

function readService(name: string, env: NodeJS.ProcessEnv): Map<string, string> {
  const home = env.HOME ?? os.homedir();
  const files = [
    env.PGSERVICEFILE ?? path.join(home, ".pg_service.conf"),
    path.join(env.PGSYSCONFDIR ?? "/etc/postgresql-common", "pg_service.conf"),
  ];
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    let inSection = false;
    const found = new Map<string, string>();
    for (const [index, raw] of text.split(/\r?\n/).entries()) {
      const line = raw.trim();
      if (!line || line.startsWith("#")) continue;
      const section = /^\[(.*)\]$/.exec(line);
      if (section) {
        if (inSection) return found;
        inSection = section[1] === name;
        continue;
      }
      if (!inSection) continue;
      const eq = line.indexOf("=");
      if (eq < 0) throw new ParameterError(`syntax error in service file "${file}", line ${index + 1}`);
      const key = line.slice(0, eq).trim();
      if (key === "service") throw new ParameterError(`nested "service" in service file "${file}", line ${index + 1}`);
      checkKeyword(key, `keyword in service file "${file}":`);
      found.set(key, line.slice(eq + 1).trim());
    }
    if (inSection) return found;
  }
  throw new ParameterError(`definition of service "${name}" not found (looked in ${files.join(" and ")})`);
}

export function isLoopbackHost(host: string): boolean {
  if (host.startsWith("/") || host.startsWith("@")) return true;
  if (host.toLowerCase() === "localhost") return true;
  if (net.isIPv4(host)) return host.startsWith("127.");
  if (net.isIPv6(host)) return host === "::1" || /^::ffff:127\./i.test(host);
  return false;
}

function existing(file: string): string | undefined {
  return fs.existsSync(file) ? file : undefined;
}

/** The connection `text` names, with service file, `env` and defaults underneath; errors never echo a password. */
export async function resolvePostgresSettings(
  text: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PostgresSettings> {
  const given = parseConnectionString(text);
  const service = given.get("service") ?? env.PGSERVICE;
  const fromService = service ? readService(service, env) : new Map<string, string>();
  const sources = new Map<string, SettingSource>();
  const value = (keyword: string): string | undefined => {
    const layers: [SettingSource, string | undefined][] = [
      ["connection string", given.get(keyword)],
      ["service file", fromService.get(keyword)],
      ["environment", HONOURED[keyword] ? env[HONOURED[keyword]] : undefined],
    ];
    for (const [source, v] of layers) {
      // libpq treats an empty environment variable as unset, and an empty keyword value as given.
      if (v !== undefined && (source !== "environment" || v !== "")) {
        sources.set(keyword, source);
        return v;
      }
    }
    sources.set(keyword, "default");
    return undefined;
  };

  const hostValue = value("host");
  if (hostValue === undefined || hostValue === "") {
    throw new ParameterError("the PostgreSQL connection names no host: put one in the URI (or host=…, or PGHOST)");
  }
  if (hostValue.includes(",")) {
    throw new ParameterError(
      `the connection names several hosts (${hostValue}); the lab measures one server: name one host`,
    );
  }
  const portText = value("port") ?? "5432";
  if (portText.includes(",")) {
    throw new ParameterError(`the connection names several ports (${portText}); the lab measures one server`);
  }
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw new ParameterError(`invalid port "${portText}" in the PostgreSQL connection (a number 1–65535)`);
  }
  const user = value("user") || os.userInfo().username;
  const database = value("dbname") || user;

  const modeText = value("sslmode");
  const sslModeSource = sources.get("sslmode") ?? "default";
  let sslMode = (modeText ?? "prefer") as SslMode;
  if (!(SSL_MODES as readonly string[]).includes(sslMode)) {
    throw new ParameterError(`invalid sslmode "${modeText}" (one of ${SSL_MODES.join(", ")})`);
  }
  const postgresDir = path.join(env.HOME ?? os.homedir(), ".postgresql");
  const rootCertGiven = value("sslrootcert");
  const sslRootCert = rootCertGiven ?? existing(path.join(postgresDir, "root.crt"));
  if (rootCertGiven !== undefined && rootCertGiven !== "system" && !fs.existsSync(rootCertGiven)) {
    throw new ParameterError(`root certificate file "${rootCertGiven}" (sslrootcert) does not exist`);
  }
  // libpq ≥ 16: sslrootcert=system means verify-full, since public roots vouch for anyone.
  if (sslRootCert === "system" && sslModeSource === "default") sslMode = "verify-full";
  if (sslRootCert === "system" && sslMode !== "verify-full") {
    throw new ParameterError(`weak sslmode "${sslMode}" may not be used with sslrootcert=system (use "verify-full")`);
  }
  const sslCert = value("sslcert") ?? existing(path.join(postgresDir, "postgresql.crt"));
  const sslKey = value("sslkey") ?? existing(path.join(postgresDir, "postgresql.key"));
  for (const [keyword, file] of [
    ["sslcert", sslCert],
    ["sslkey", sslKey],
  ] as const) {
    if (file !== undefined && sources.get(keyword) !== "default" && !fs.existsSync(file)) {
      throw new ParameterError(`certificate file "${file}" (${keyword}) does not exist`);
    }
  }
  const protocol = (keyword: string): string | undefined => {
    const v = value(keyword);
    if (v !== undefined && !/^TLSv1(\.[0-3])?$/.test(v)) {
      throw new ParameterError(`invalid ${keyword} "${v}" (TLSv1, TLSv1.1, TLSv1.2 or TLSv1.3)`);
    }
    return v;
  };
  const negotiationText = value("sslnegotiation");
  const sslNegotiation = negotiationText === undefined || negotiationText === "" ? "postgres" : negotiationText;
  if (sslNegotiation !== "postgres" && sslNegotiation !== "direct") {
    throw new ParameterError(`invalid sslnegotiation "${negotiationText}" (postgres or direct)`);
  }
  // libpq 17: direct TLS has no plaintext to fall back to, so the weak modes are refused with it.
  if (sslNegotiation === "direct" && !["require", "verify-ca", "verify-full"].includes(sslMode)) {
    throw new ParameterError(
      `weak sslmode "${sslMode}" may not be used with sslnegotiation=direct (use "require", "verify-ca", or "verify-full")`,
    );
  }
  const bindingText = value("channel_binding");
  const channelBinding = bindingText === undefined || bindingText === "" ? undefined : bindingText;
  if (channelBinding === "require") {
    throw new ParameterError(
      "channel_binding=require cannot be honoured: node-postgres 8.23 binds the SCRAM exchange to TLS when the " +
        "server offers it (channel_binding=prefer) but cannot refuse a connection made without it. Use " +
        "channel_binding=prefer, and make the server insist (pg_hba.conf hostssl … scram-sha-256)",
    );
  }
  if (channelBinding !== undefined && channelBinding !== "disable" && channelBinding !== "prefer") {
    throw new ParameterError(`invalid channel_binding "${bindingText}" (disable, prefer or require)`);
  }
  const timeoutText = value("connect_timeout");
  let connectTimeoutSeconds: number | undefined;
  if (timeoutText !== undefined && timeoutText !== "") {
    if (!/^-?\d+$/.test(timeoutText)) throw new ParameterError(`invalid connect_timeout "${timeoutText}" (seconds)`);
    // libpq: zero, negative or not given means wait indefinitely; 1 is raised to 2.
    const t = Number(timeoutText);
    connectTimeoutSeconds = t <= 0 ? undefined : Math.max(2, t);
  }

  let password = value("password");
  let passwordSource: PostgresSettings["passwordSource"] =
    password !== undefined ? (sources.get("password") ?? "none") : "none";
  if (password === undefined) {
    const passfile = value("passfile") ?? pgpassHelper.getFileName(env);
    password = await passwordFromFile(passfile, { host: hostValue, port, database, user });
    if (password !== undefined) passwordSource = "password file";
  }

  return {
    host: hostValue,
    port,
    user,
    password,
    passwordSource,
    database,
    sslMode,
    sslModeSource,
    sslRootCert,
    sslCert,
    sslKey,
    sslMinProtocolVersion: protocol("ssl_min_protocol_version"),
    sslMaxProtocolVersion: protocol("ssl_max_protocol_version"),
    applicationName: value("application_name") ?? value("fallback_application_name"),
    connectTimeoutSeconds,
    options: value("options"),
    clientEncoding: value("client_encoding"),
    sslNegotiation,
    channelBinding,
  };
}

/** A password from a .pgpass file (`pgpass`, node-postgres's reader), honouring `passfile=`. */
async function passwordFromFile(
  file: string,
  target: { host: string; port: number; database: string; user: string },
): Promise<string | undefined> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  if (!pgpassHelper.usePgPass(stat, file)) return undefined;
  // libpq matches a Unix-socket connection in the default directory against "localhost".
  const host = target.host.startsWith("/") ? "localhost" : target.host;
  return new Promise((resolve) => {
    pgpassHelper.getPassword(
      { host, port: String(target.port), database: target.database, user: target.user },
      fs.createReadStream(file),
      (password) => resolve(password),
    );
  });
}
