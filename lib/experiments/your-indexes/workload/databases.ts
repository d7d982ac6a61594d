/** The reader's data loaded once into a template, each variant built from it, each run a clone of its variant. */
import { cancellable, withClient as withConnection } from "../../../engines/postgres/connect";
import { cloneDatabase, dropDatabases, recreateDatabase } from "../../../engines/postgres/template-database";
import { enableWalInspect } from "../../../engines/postgres/wal-records";
import { InputError } from "../../../runtime/input-error";
import { databasePrefix, likePrefix } from "../../../targets/run-names";
import type { StartedServer } from "../../../targets/types";
import { listIndexes, listTables, type IndexInfo } from "./catalog";
import { runSqlFile } from "./sql-files";
import { timed } from "../../../workloads/timed";
import { withAdmin } from "../../../workloads/fresh-copies";
import type { Variant } from "./variants";
import type { YourIndexesParams } from "../params";
import { errorMessage } from "../../../runtime/error-message";

// Under the run's prefix (run-names.ts), so two runs on one external server never share a database.
const named = (server: StartedServer, suffix: string): string => `${databasePrefix(server)}_${suffix}`;
export const templateDatabase = (server: StartedServer): string => named(server, "yi_template");
export const runDatabase = (server: StartedServer): string => named(server, "yi_run");
const MAX_VARIANTS = 200;
const suffixes = (variants: number) => [
  "yi_run",
  "yi_template",
  ...Array.from({ length: variants }, (_, i) => `yi_v${i}`),
];

export interface TemplateSteps {
  readonly afterSchema?: (indexes: readonly IndexInfo[]) => void;
  readonly fill: (server: StartedServer, database: string, signal?: AbortSignal) => Promise<void>;
  readonly onStep?: (label: string) => void;
  readonly signal?: AbortSignal;
}

export const fillFromFile =
  (file: string, scale: number) => (server: StartedServer, database: string, signal?: AbortSignal) =>
    runSqlFile(server.connection, file, { database, variables: { scale }, signal });

export type LoadedTemplate = Awaited<ReturnType<typeof createTemplate>>;

export async function createTemplate(server: StartedServer, schemaFile: string, steps: TemplateSteps) {
  await dropAllDatabases(server);
  const template = templateDatabase(server);
  await recreateDatabase(server.connection, template);
  const loadSeconds: Record<string, number> = {};
  const step = async (label: string, fn: () => Promise<void>) => {
    steps.signal?.throwIfAborted();
    steps.onStep?.(label);
    [, loadSeconds[label]] = await timed(fn);
  };
  // In the template, so every clone counts its B-tree inserts from its WAL.
  const walInspectError = await withAdmin(server, template, enableWalInspect);
  await step("schema", () => runSqlFile(server.connection, schemaFile, { database: template, signal: steps.signal }));
  steps.afterSchema?.(await withAdmin(server, template, listIndexes));
  await step("data", () => steps.fill(server, template, steps.signal));
  await step("vacuum analyze", () =>
    withAdmin(server, template, (c) =>
      cancellable(server.connection, c, steps.signal, async () => {
        await c.query("VACUUM (ANALYZE)");
      }),
    ),
  );
  return withAdmin(server, template, async (c) => {
    const rows = await c.query<{ t: string; n: string }>(
      "SELECT s.relname AS t, greatest(c.reltuples, 0)::bigint::text AS n FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid",
    );
    const size = await c.query<{ b: string }>("SELECT pg_database_size(current_database())::text AS b");
    return {
      indexes: await listIndexes(c),
      tables: await listTables(c),
      rows: Object.fromEntries(rows.rows.map((r) => [r.t, Number(r.n)])),
      databaseBytes: Number(size.rows[0].b),
      loadSeconds,
      walInspect: walInspectError === undefined,
      ...(walInspectError ? { walInspectError } : {}),
    };
  });
}

export interface BuiltVariant {
  readonly id: string;
  readonly database: string;
  readonly indexes: readonly IndexInfo[];
  readonly created: readonly string[];
  readonly buildSeconds: number;
}

export class CandidateError extends InputError {
  override readonly name = "CandidateError";
}

export async function buildVariants(
  server: StartedServer,
  variants: readonly Variant[],
  candidates: readonly string[],
  maintenanceWorkMemMB: number,
  signal?: AbortSignal,
): Promise<BuiltVariant[]> {
  if (variants.length > MAX_VARIANTS) throw new Error(`${variants.length} variants: at most ${MAX_VARIANTS}`);
  const out: BuiltVariant[] = [];
  for (const [i, v] of variants.entries()) {
    signal?.throwIfAborted();
    const database = named(server, `yi_v${i}`);
    await cloneDatabase(server.connection, templateDatabase(server), database);
    const began = Date.now();
    const built = await withAdmin(server, database, async (c) => {
      const before = new Set((await listIndexes(c)).map((x) => x.name));
      await cancellable(server.connection, c, signal, async () => {
        await c.query(`SET maintenance_work_mem = '${maintenanceWorkMemMB}MB'`);
        if (v.change.kind === "drop")
          for (const index of v.change.indexes) {
            const { rows } = await c.query<{ q: string }>(
              `SELECT quote_ident(n.nspname) || '.' || quote_ident(i.relname) AS q
               FROM pg_class i JOIN pg_namespace n ON n.oid = i.relnamespace WHERE i.relkind = 'i' AND i.relname = $1`,
              [index],
            );
            if (rows.length !== 1) throw new Error(`index ${index}: ${rows.length} indexes of that name`);
            await c.query(`DROP INDEX ${rows[0].q}`);
          }
        if (v.change.kind === "add")
          for (const statement of v.change.statements) {
            try {
              await c.query(statement);
            } catch (error) {
              // The server refuses with a SQLSTATE; a lost connection (none, or class 08/57P) is not the statement.
              const code = (error as { code?: unknown }).code;
              throw new CandidateError(
                `candidates[${candidates.indexOf(statement)}] (${statement}) failed: ${errorMessage(error)}`,
                { cause: error, byInput: typeof code === "string" && !/^(08|57P)/.test(code) },
              );
            }
          }
      });
      const indexes = await listIndexes(c);
      return { indexes, created: indexes.filter((x) => !before.has(x.name)).map((x) => x.name) };
    });
    out.push({ id: v.id, database, ...built, buildSeconds: (Date.now() - began) / 1000 });
  }
  // Builds leave dirty pages: written now, not inside the first timed run.
  await withConnection(server.connection, (c) => c.query("CHECKPOINT"));
  return out;
}

/** The databases a run can make, as suffixes of the server's prefix (an external server's pre-flight). */
export function workloadDatabases(p: Pick<YourIndexesParams, "existing" | "candidates" | "groups">): string[] {
  // At most: each index, the candidates together, every group and the set of all existing ones.
  const variants = !Array.isArray(p.existing)
    ? MAX_VARIANTS
    : 2 + p.existing.length + p.candidates.length + (p.candidates.length > 1 ? 1 : 0) + Object.keys(p.groups).length;
  return suffixes(variants);
}

export async function dropAllDatabases(server: StartedServer, variants = MAX_VARIANTS): Promise<void> {
  const { rows } = await withConnection(server.connection, (c) =>
    c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [
      likePrefix(`${databasePrefix(server)}_yi`),
    ]),
  );
  const known = new Set(suffixes(variants).map((x) => named(server, x)));
  const ours = rows.map((r) => r.datname).filter((d) => known.has(d));
  await dropDatabases(server.connection, ours);
}
