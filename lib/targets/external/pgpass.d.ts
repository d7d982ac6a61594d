/** The parts of the `pgpass` package (node-postgres's .pgpass reader, untyped) the lab calls. */
declare module "pgpass/lib/helper" {
  import type { Stats } from "node:fs";
  import type { Readable } from "node:stream";
  interface PgpassTarget {
    readonly host: string;
    readonly port: string;
    readonly database: string;
    readonly user: string;
  }
  const helper: {
    /** PGPASSFILE, else ~/.pgpass (from the given environment). */
    getFileName(env?: NodeJS.ProcessEnv): string;
    /** False (with a warning on stderr) for a file that is not plain or that group or others can read. */
    usePgPass(stats: Stats, file: string): boolean;
    getPassword(target: PgpassTarget, stream: Readable, done: (password: string | undefined) => void): void;
  };
  export default helper;
}
