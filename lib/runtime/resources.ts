/** Record, shutdown path and kernel watcher in one call so no target forgets a part (own module: import cycle). */
import { writeRecord, type ResourceRecord } from "./resource-registry";
import { installShutdownHooks } from "./shutdown";
import { ensureWatcher } from "./watcher";

export { unregister, update } from "./resource-registry";

export function register(resource: ResourceRecord, runId?: string): string {
  installShutdownHooks();
  ensureWatcher();
  return writeRecord(resource, runId);
}
