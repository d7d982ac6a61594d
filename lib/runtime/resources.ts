/**
 * Registering a resource the lab starts: its record on disk, the shutdown path, and in a kernel the
 * watcher, in one call so no target forgets a part (its own module to avoid an import cycle).
 */
import { writeRecord, type ResourceRecord } from "./resource-registry";
import { installShutdownHooks } from "./shutdown";
import { ensureWatcher } from "./watcher";

export { unregister, update } from "./resource-registry";

export function register(resource: ResourceRecord, runId?: string): string {
  installShutdownHooks();
  ensureWatcher();
  return writeRecord(resource, runId);
}
