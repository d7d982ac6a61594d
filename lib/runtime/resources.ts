/**
 * Registering a resource the lab starts (a server, a container, a proxy, pgbench): the record on
 * disk (./resource-registry), the one shutdown path that stops it on signals, uncaught errors and
 * exit (./shutdown), and, in a notebook kernel, the watcher that removes it should the kernel be
 * killed (./watcher). One call, so no target can forget a part; a module of its own, so that the
 * registry below the shutdown path and the watcher imports neither (no import cycle).
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
