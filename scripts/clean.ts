/**
 * `npm run clean`: removes whatever a dead lab run left behind (embedded servers and their data
 * directories, helper processes, containers) and says what it removed. Resources of runs that are
 * still alive are left alone. `--wait-for-pid N` first waits for process N to end (the detached
 * reaper a run spawns on exit uses it); Containers labelled as the lab's whose owner is gone are removed even without a record.
 */
import { reapOrphans } from "../lib/runtime/reaper";
import { isProcessAlive, listRecords } from "../lib/runtime/resource-registry";
import { dockerAvailable, dockerClient, LAB_LABEL } from "../lib/targets/docker/docker-client";

async function removeUnrecordedContainers(quiet: boolean): Promise<number> {
  if (!(await dockerAvailable())) return 0;
  const containers = await dockerClient().listContainers({ all: true, filters: { label: [LAB_LABEL] } });
  let removed = 0;
  for (const info of containers) {
    const owner = Number(info.Labels[`${LAB_LABEL}.owner-pid`]);
    if (owner && isProcessAlive(owner) && owner !== process.pid) continue;
    await dockerClient().getContainer(info.Id).remove({ force: true, v: true });
    removed++;
    if (!quiet) console.log(`removed container ${info.Id.slice(0, 12)} (${info.Image}, owner pid ${owner || "?"} gone)`);
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
  const reaped = await reapOrphans();
  for (const r of reaped) if (!quiet) console.log(`removed ${r.description} (owner pid ${r.ownerPid} gone)`);
  const containers = await removeUnrecordedContainers(quiet);
  const alive = listRecords().filter((r) => r.ownerAlive);
  if (!quiet) {
    console.log(`clean: removed ${reaped.length + containers} resource(s)` + (alive.length ? `; ${alive.length} belong to running lab processes and were left alone` : ""));
  }
}

main().catch((error) => {
  console.error(`clean failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
