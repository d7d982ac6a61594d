/**
 * `npm run clean`: removes whatever a dead lab run left behind (embedded servers and their data
 * directories, helper processes, containers) and says what it removed. Resources of runs that are
 * still alive are left alone. `--wait-for-pid N` first waits for process N to end (the detached
 * reaper a run spawns on exit uses it); Containers labelled as the lab's whose owner is gone are removed even without a record.
 */
import { reapOrphans } from "../lib/runtime/reaper";
import { isProcessAlive, listRecords } from "../lib/runtime/resource-registry";
import os from "node:os";
import { dockerClientFor, LAB_LABEL, withTimeout } from "../lib/targets/docker/docker-client";
import { endpointFromRef, resolveEndpoint, type DockerEndpoint } from "../lib/targets/docker/endpoint";

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The engine the environment names, and every engine a remaining record names (remote ones included). */
function enginesToSweep(): Map<string, DockerEndpoint> {
  const engines = new Map<string, DockerEndpoint>();
  try {
    const current = resolveEndpoint();
    engines.set(current.host, current);
  } catch (error) {
    console.error(`clean: not looking at the engine the environment names: ${message(error)}`);
  }
  for (const record of listRecords()) {
    const r = record.resource;
    if (r.type !== "docker-container" || !r.dockerHost || engines.has(r.dockerHost)) continue;
    try {
      engines.set(r.dockerHost, endpointFromRef({ dockerHost: r.dockerHost, dockerContext: r.dockerContext }));
    } catch {
      // An address this version refuses: the record stays, and says where it was.
    }
  }
  return engines;
}

async function removeUnrecordedContainers(endpoint: DockerEndpoint, quiet: boolean): Promise<number> {
  const docker = dockerClientFor(endpoint);
  const limit = endpoint.local ? 1500 : 15_000;
  try {
    await withTimeout(docker.ping(), limit, `no answer within ${limit / 1000} s`);
  } catch (error) {
    if (!endpoint.local || !quiet) {
      console.error(`clean: the Docker engine ${endpoint.host} is unreachable (${message(error)}); its records are kept`);
    }
    return 0;
  }
  const containers = await docker.listContainers({ all: true, filters: { label: [LAB_LABEL] } });
  let removed = 0;
  for (const info of containers) {
    const owner = Number(info.Labels[`${LAB_LABEL}.owner-pid`]);
    // A shared remote engine also runs other machines' labs: their pids mean nothing here.
    const ownerHost = info.Labels[`${LAB_LABEL}.owner-host`];
    if (ownerHost !== undefined && ownerHost !== os.hostname()) continue;
    if (owner && isProcessAlive(owner) && owner !== process.pid) continue;
    await docker.getContainer(info.Id).remove({ force: true, v: true });
    removed++;
    const where = endpoint.local ? "" : ` on ${endpoint.host}`;
    if (!quiet) {
      console.log(`removed container ${info.Id.slice(0, 12)}${where} (${info.Image}, owner pid ${owner || "?"} gone)`);
    }
  }
  return removed;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quiet = args.includes("--quiet");
  const waitIndex = args.indexOf("--wait-for-pid");
  if (waitIndex >= 0) {
    const pid = Number(args[waitIndex + 1]);
    while (isProcessAlive(pid)) await new Promise((r) => setTimeout(r, 200));
  }
  const engines = enginesToSweep();
  const reaped = await reapOrphans();
  for (const r of reaped) if (!quiet) console.log(`removed ${r.description} (owner pid ${r.ownerPid} gone)`);
  let containers = 0;
  for (const endpoint of engines.values()) containers += await removeUnrecordedContainers(endpoint, quiet);
  const alive = listRecords().filter((r) => r.ownerAlive);
  if (!quiet) {
    console.log(`clean: removed ${reaped.length + containers} resource(s)` + (alive.length ? `; ${alive.length} belong to running lab processes and were left alone` : ""));
  }
}

main().catch((error) => {
  console.error(`clean failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
