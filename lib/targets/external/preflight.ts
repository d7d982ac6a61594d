/**
 * Before the lab changes anything on someone else's server: what it is, what the role may do, which
 * extensions are there, whether the connections fit, and so what will be measured. A missing
 * privilege the notebook needs is a refusal naming it, before the lab's database is created.
 */
import type { Client } from "pg";
import type { ConnectionInfo, ExtensionUse, ServerSpec, TransportSecurity } from "../types";
import { transportText } from "./tls-options";

export interface ExtensionState {
  readonly name: string;
  readonly available: boolean;
  readonly preloaded: boolean;
  /** This role can CREATE EXTENSION it (superuser, trusted, or not superuser-only). */
  readonly creatable: boolean;
  /** The figures it gives can be had here. */
  readonly usable: boolean;
  readonly why?: string;
}

export interface PreflightReport {
  readonly version: string;
  readonly role: string;
  readonly superuser: boolean;
  readonly createdb: boolean;
  readonly checkpoint: boolean;
  readonly extensions: readonly ExtensionState[];
  /** max_connections less reserved and in use. */
  readonly freeConnections: number;
  readonly clients: number;
  /** The pre-flight as printed. */
  readonly text: string;
  /** Set when the notebook cannot run here: which privilege or setting is missing. */
  readonly refusal?: string;
}

/** The lab's own sessions beside the workload's. */
const LAB_SESSIONS = 4;

/** The server's side of a spec, read without changing anything. */
export async function preflight(
  client: Client,
  spec: ServerSpec,
  connection: ConnectionInfo,
  transport: TransportSecurity,
): Promise<PreflightReport> {
  const { rows } = await client.query<{
    version: string;
    role: string;
    superuser: boolean;
    createdb: boolean;
    replication: boolean;
    wal_level: string;
    member_of: string[];
    max_connections: number;
    reserved: number;
    in_use: number;
    preload: string;
    loaded: string[];
  }>(
    `SELECT current_setting('server_version') AS version, current_user AS role,
            r.rolsuper AS superuser, r.rolcreatedb AS createdb, r.rolreplication AS replication,
            current_setting('wal_level') AS wal_level,
            ARRAY(SELECT g.rolname::text FROM pg_roles g WHERE pg_has_role(current_user, g.oid, 'MEMBER')) AS member_of,
            current_setting('max_connections')::int AS max_connections,
            current_setting('superuser_reserved_connections')::int
              + coalesce(nullif(current_setting('reserved_connections', true), ''), '0')::int AS reserved,
            (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend') AS in_use,
            -- Hidden from roles without pg_read_all_settings (a managed server's usual role): then ''.
            coalesce((SELECT setting FROM pg_settings WHERE name = 'shared_preload_libraries'), '') AS preload,
            -- A loaded library's own settings (pg_stat_statements.max …) show in pg_settings for anyone.
            ARRAY(SELECT DISTINCT split_part(name, '.', 1) FROM pg_settings WHERE name LIKE '%.%') AS loaded
       FROM pg_roles r WHERE r.rolname = current_user`,
  );
  const r = rows[0];
  const members = new Set(r.member_of);
  const preloaded = new Set(
    r.preload
      .split(",")
      .map((s) => s.trim().replace(/^"|"$/g, ""))
      .filter(Boolean)
      .concat(r.loaded),
  );
  const uses = spec.uses;
  const wanted: readonly ExtensionUse[] = uses?.extensions ?? [];
  const { rows: ext } = await client.query<{ name: string; superuser: boolean; trusted: boolean }>(
    `SELECT e.name, v.superuser, v.trusted
       FROM pg_available_extensions e
       JOIN pg_available_extension_versions v ON v.name = e.name AND v.version = e.default_version
      WHERE e.name = ANY($1)`,
    [wanted.map((e) => e.name)],
  );
  const found = new Map(ext.map((e) => [e.name, e]));
  // pg_walinspect's functions are revoked from PUBLIC and granted to pg_read_server_files (PostgreSQL ≥ 15).
  const readsWal = r.superuser || members.has("pg_read_server_files");
  const extensions: ExtensionState[] = wanted.map((use) => {
    const e = found.get(use.name);
    const available = e !== undefined;
    const isPreloaded = preloaded.has(use.name);
    const creatable = available && (r.superuser || !e.superuser || e.trusted);
    let why: string | undefined;
    if (!available) why = "not installed on the server";
    else if (!creatable) why = `CREATE EXTENSION ${use.name} needs a superuser here`;
    else if (use.preload && !isPreloaded) why = "not in shared_preload_libraries, so it counts nothing";
    else if (use.name === "pg_walinspect" && !readsWal) why = "reading the WAL needs superuser or pg_read_server_files";
    return { name: use.name, available, preloaded: isPreloaded, creatable, usable: why === undefined, why };
  });
  const checkpoint = r.superuser || members.has("pg_checkpoint");
  const freeConnections = r.max_connections - r.reserved - r.in_use;
  const clients = (uses?.clients ?? 0) + LAB_SESSIONS;
  // A temporary physical slot: REPLICATION (or superuser), and WAL that carries more than minimal.
  const walHold = (r.superuser || r.replication) && r.wal_level !== "minimal";

  const extra = uses?.databases ?? [];
  const { rows: present } = await client.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname = ANY($1) ORDER BY datname",
    [extra],
  );

  const refusals: string[] = [];
  if (!r.superuser && !r.createdb) {
    refusals.push(
      `role "${r.role}" has no CREATEDB privilege: the lab works only inside a database it creates and drops ` +
        `(ALTER ROLE ${r.role} CREATEDB, or connect as a role that has it)`,
    );
  }
  if (!checkpoint) {
    refusals.push(
      `role "${r.role}" may not run CHECKPOINT (superuser, or a member of pg_checkpoint): every notebook ` +
        `checkpoints before a timed window so that no trial pays for the one before (GRANT pg_checkpoint TO ${r.role})`,
    );
  }
  for (const e of extensions) {
    const use = wanted.find((w) => w.name === e.name);
    if (use?.required && !e.usable)
      refusals.push(`${e.name} is ${e.why}, and ${uses?.notebook} needs it for ${use.measures}`);
  }
  if (uses?.walHold && !walHold) {
    refusals.push(
      (r.wal_level === "minimal"
        ? `the server runs with wal_level = minimal, so no replication slot can keep WAL`
        : `role "${r.role}" has no REPLICATION privilege, so it cannot make the temporary replication slot`) +
        ` that keeps WAL for ${uses.walHold.measures} (ALTER ROLE ${r.role} REPLICATION)`,
    );
  }
  if (clients > freeConnections) {
    refusals.push(
      `the run opens up to ${clients} sessions and the server has ${freeConnections} free ` +
        `(max_connections ${r.max_connections}, ${r.reserved} reserved, ${r.in_use} in use): lower the clients asked for`,
    );
  }

  const yes = (b: boolean) => (b ? "yes" : "no");
  const lines = [
    `Pre-flight${uses ? ` for ${uses.notebook}` : ""}: PostgreSQL ${r.version} at ${connection.host}:${connection.port}`,
    `  connection   ${transportText(transport)}`,
    `  role         ${r.role}: superuser ${yes(r.superuser)} · CREATEDB ${yes(r.createdb)} · CHECKPOINT ${yes(checkpoint)}` +
      (uses?.walHold ? ` · REPLICATION ${yes(r.superuser || r.replication)} (wal_level ${r.wal_level})` : ""),
    `  connections  max_connections ${r.max_connections} (${r.reserved} reserved), ${r.in_use} in use → ` +
      `${freeConnections} free; this run opens up to ${clients}`,
  ];
  if (extensions.length === 0) lines.push("  extensions   none used");
  for (const [i, e] of extensions.entries()) {
    const use = wanted[i];
    const state = e.available
      ? `available${use.preload ? `, ${e.preloaded ? "preloaded" : "not preloaded"}` : ""}`
      : "not available";
    lines.push(
      `  ${i === 0 ? "extensions  " : "            "} ${e.name} (${state}): ${use.measures} — ` +
        (e.usable ? "measured" : `NOT measured (${e.why})`),
    );
  }
  if (extra.length) {
    lines.push(
      `  databases    the notebook also creates and drops ${namesInShort(extra)}` +
        (present.length
          ? ` (present now, left by an earlier run, and replaced: ${present.map((d) => d.datname).join(", ")})`
          : ""),
    );
  }
  lines.push(
    refusals.length
      ? `  → refused: ${refusals.join("; ")}`
      : "  → ready: the lab creates its own database there (dblab_…) and drops it at the end",
  );
  return {
    version: r.version,
    role: r.role,
    superuser: r.superuser,
    createdb: r.createdb,
    checkpoint,
    extensions,
    freeConnections,
    clients,
    text: lines.join("\n"),
    refusal: refusals.length
      ? `The external PostgreSQL at ${connection.host}:${connection.port} cannot run ${uses?.notebook ?? "this notebook"}: ${refusals.join("; ")}. Nothing was changed there.`
      : undefined,
  };
}

/** A long list of database names as its first ones, the last and the count. */
function namesInShort(names: readonly string[]): string {
  return names.length <= 8
    ? names.join(", ")
    : `${names.slice(0, 4).join(", ")}, …, ${names.at(-1)} (${names.length} in all)`;
}
