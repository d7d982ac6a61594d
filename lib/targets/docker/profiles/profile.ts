/** What the docker target needs to know of an engine to run it in a container. */
import type { ReadinessProbe } from "../../readiness";
import type { ConnectionInfo, ServerSettings } from "../../types";

/** How one engine runs in a container: credentials, command line, readiness, URI. */
export interface EngineProfile {
  readonly port: number;
  readonly user: string;
  readonly database: string;
  /** The image's data volume, where the storage is measured. */
  readonly dataDir: string;
  /** Defaults unless the spec overrides them; recorded in the description. */
  readonly defaults: ServerSettings;
  env(password: string): string[];
  cmd(settings: ServerSettings): string[];
  uri(connection: ConnectionInfo): string;
  /** Answers with the server's version once the final (not an init-time) server does. */
  probe(connection: ConnectionInfo): ReadinessProbe;
  readonly readyIntervalMs: number;
}
