/**
 * `npm run clean`: removes whatever a dead lab run left behind (embedded servers and their data
 * directories, helper processes, containers) and says what it removed. Resources of runs that are
 * still alive are left alone. `--wait-for-pid N` first waits for process N to end (the detached
 * reaper a run spawns on exit uses it); Containers labelled as the lab's whose owner is gone are removed even without a record.
 */
import { reapOrphans, type KeptResource } from "../lib/runtime/reaper";
import { isProcessAlive, listRecords } from "../lib/runtime/resource-registry";
import { dockerAvailable, dockerClient, dockerEndpoint, errorText, LAB_LABEL, withEngineTimeout } from "../lib/targets/docker/docker-client";

/**
 * Labelled containers whose owner is gone. Each on its own, and an unreachable engine is a thing
 * to report, not a failure: clean removes what it can reach (issue 15: it failed with connect ENOENT).
 */
async function removeUnrecordedContainers(quiet: boolean, notReached: string[]): Promise<number> {
  if (!(await dockerAvailable())) return 0;
  let containers: Awaited<ReturnType<ReturnType<typeof dockerClient>["listContainers"]>>;
  try {
    containers = await withEngineTimeout(dockerClient().listContainers({ all: true, filters: { label: [LAB_LABEL] } }));
  } catch (error) {
    notReached.push(`labelled containers: the Docker engine at ${dockerEndpoint()} did not list them (${errorText(error)})`);
    return 0;
  }
  let removed = 0;
  for (const info of containers) {
    const owner = Number(info.Labels[`${LAB_LABEL}.owner-pid`]);
    if (owner && isProcessAlive(owner) && owner !== process.pid) continue;
    try {
      await withEngineTimeout(dockerClient().getContainer(info.Id).remove({ force: true, v: true }));
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) continue;
      notReached.push(`container ${info.Id.slice(0, 12)} (${info.Image}): ${errorText(error)}`);
      continue;
    }
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
  const kept: KeptResource[] = [];
  const reaped = await reapOrphans({ onKept: (k) => kept.push(k) });
  for (const r of reaped) if (!quiet) console.log(`removed ${r.description} (owner pid ${r.ownerPid} gone)`);
  const notReached = kept.map((k) => `${k.description} (owner pid ${k.ownerPid} gone): ${k.reason}`);
  const containers = await removeUnrecordedContainers(quiet, notReached);
  const alive = listRecords().filter((r) => r.ownerAlive);
  if (!quiet) {
    console.log(`clean: removed ${reaped.length + containers} resource(s)` + (alive.length ? `; ${alive.length} belong to running lab processes and were left alone` : ""));
  }
  // Said even with --quiet: a resource left running is something the user must know about. Exit 0:
  // clean did all it could; the records stay, and the next clean or run retries them.
  if (notReached.length) {
    console.log(`clean: could not reach ${notReached.length} resource(s); their records are kept for a later clean:`);
    for (const line of notReached) console.log(`  ${line}`);
  }
}

main().catch((error) => {
  console.error(`clean failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
