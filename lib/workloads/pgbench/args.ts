/** pgbench command lines, built in one place and checked before anything runs; the password travels in PGPASSWORD. */

/** Its file name, text, and (with several) weight. */
export interface PgbenchScript {
  readonly name: string;
  readonly text: string;
  readonly weight?: number;
}

export function customScripts(o: Pick<PgbenchLoadOptions, "script" | "scripts">): readonly PgbenchScript[] {
  return [...(o.script ? [o.script] : []), ...(o.scripts ?? [])];
}

export type BuiltinScript = "tpcb-like" | "simple-update" | "select-only";

export interface PgbenchInitOptions {
  /** 100,000 pgbench_accounts rows per unit. */
  readonly scale: number;
  /** `-I` steps; default "dtgvp"; "G" generates server-side. */
  readonly steps?: string;
  readonly fillfactor?: number;
  /** Default the server's. */
  readonly database?: string;
  /** Stops a host pgbench -i at once. */
  readonly signal?: AbortSignal;
}

export interface PgbenchLoadOptions {
  readonly clients: number;
  readonly threads?: number;
  readonly durationSeconds: number;
  /** Default tpcb-like unless `script` is given. */
  readonly builtin?: BuiltinScript;
  /** `-f`. */
  readonly script?: PgbenchScript;
  /** `-f file@weight`. */
  readonly scripts?: readonly PgbenchScript[];
  /** `-D name=value`. */
  readonly defines?: Readonly<Record<string, string | number>>;
  /** `-n`: skip VACUUM and history TRUNCATE. */
  readonly noVacuum?: boolean;
  /** `-r` (default on). */
  readonly reportStatements?: boolean;
  /** `-P` interval, s (default 1); 0 = none. */
  readonly progressSeconds?: number;
  readonly protocol?: "simple" | "extended" | "prepared";
  /** `--max-tries` (pgbench ≥ 15). */
  readonly maxTries?: number;
  readonly database?: string;
}

const STEPS = /^[dtgGvpf]+$/;

export function checkInitOptions(o: PgbenchInitOptions): void {
  if (!Number.isInteger(o.scale) || o.scale < 1)
    throw new Error(`pgbench scale must be a positive integer, got ${o.scale}`);
  if (o.steps !== undefined && !STEPS.test(o.steps)) {
    throw new Error(`pgbench init steps must use the letters d t g G v p f, got "${o.steps}"`);
  }
  if (o.fillfactor !== undefined && (!Number.isInteger(o.fillfactor) || o.fillfactor < 10 || o.fillfactor > 100)) {
    throw new Error(`pgbench fillfactor must be an integer from 10 to 100, got ${o.fillfactor}`);
  }
}

export function checkLoadOptions(o: PgbenchLoadOptions): void {
  const positive = (name: string, v: number | undefined) => {
    if (v !== undefined && (!Number.isInteger(v) || v < 1))
      throw new Error(`pgbench ${name} must be a positive integer, got ${v}`);
  };
  positive("clients", o.clients);
  positive("threads", o.threads);
  positive("durationSeconds", o.durationSeconds);
  positive("maxTries", o.maxTries);
  if (o.threads !== undefined && o.threads > o.clients) {
    throw new Error(`pgbench threads (${o.threads}) cannot exceed clients (${o.clients})`);
  }
  if (o.progressSeconds !== undefined && (!Number.isInteger(o.progressSeconds) || o.progressSeconds < 0)) {
    throw new Error(`pgbench progressSeconds must be an integer ≥ 0, got ${o.progressSeconds}`);
  }
  if (customScripts(o).length && o.builtin)
    throw new Error("give pgbench either a builtin or a custom script, not both");
  for (const w of customScripts(o).map((x) => x.weight)) positive("script weight", w);
  for (const name of Object.keys(o.defines ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`pgbench variable name "${name}" is not one`);
  }
}

export function connectionArgs(host: string, port: number, user: string): string[] {
  return ["-h", host, "-p", String(port), "-U", user];
}

export function initArgs(o: PgbenchInitOptions): string[] {
  checkInitOptions(o);
  return [
    "-i",
    "-s",
    String(o.scale),
    "-q",
    ...(o.steps ? ["-I", o.steps] : []),
    ...(o.fillfactor ? ["-F", String(o.fillfactor)] : []),
  ];
}

export interface LogArgs {
  readonly mode: "transactions" | "aggregate" | "none";
  /** `--log-prefix`. */
  readonly prefix: string;
  readonly samplingRate?: number;
  readonly aggregateSeconds?: number;
}

/**
 * The run's arguments without connection and database; `scriptPath`: the scripts' directory, or the one script file.
 */
export function loadArgs(
  o: PgbenchLoadOptions,
  log: LogArgs,
  scriptPath?: string | ((name: string) => string),
): string[] {
  checkLoadOptions(o);
  const args = ["-c", String(o.clients), "-j", String(o.threads ?? 1), "-T", String(o.durationSeconds)];
  const scripts = customScripts(o);
  if (scripts.length) {
    if (!scriptPath) throw new Error("a custom pgbench script needs the path it was written to");
    for (const script of scripts) {
      const file = typeof scriptPath === "string" ? scriptPath : scriptPath(script.name);
      args.push("-f", script.weight !== undefined ? `${file}@${script.weight}` : file);
    }
  } else {
    args.push("-b", o.builtin ?? "tpcb-like");
  }
  for (const [name, value] of Object.entries(o.defines ?? {})) args.push("-D", `${name}=${value}`);
  if (o.noVacuum) args.push("-n");
  if (o.reportStatements ?? true) args.push("-r");
  const progress = o.progressSeconds ?? 1;
  if (progress > 0) args.push("-P", String(progress), "--progress-timestamp");
  if (o.protocol) args.push("-M", o.protocol);
  if (o.maxTries) args.push(`--max-tries=${o.maxTries}`);
  if (log.mode !== "none") {
    args.push("-l", `--log-prefix=${log.prefix}`);
    if (log.mode === "aggregate") args.push(`--aggregate-interval=${log.aggregateSeconds ?? 1}`);
    if (log.mode === "transactions" && log.samplingRate !== undefined && log.samplingRate < 1) {
      args.push(`--sampling-rate=${log.samplingRate}`);
    }
  }
  return args;
}
