import type { ReadinessProbe } from "../../readiness";
import type { ConnectionInfo, ServerSettings } from "../../types";

export interface EngineProfile {
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** Where the storage is measured. */
  readonly dataDir: string;
  readonly defaults: ServerSettings;
  env(password: string): string[];
  cmd(settings: ServerSettings): string[];
  uri(connection: ConnectionInfo): string;
  /** Only the final server, not an init-time one. */
  probe(connection: ConnectionInfo): ReadinessProbe;
  readonly readyIntervalMs: number;
}
