/**
 * `npm run clean`: removes whatever a dead lab run left behind (embedded servers and their data
 * directories, helper processes, containers on every engine a record names) and says what it
 * removed. Resources of runs that are still alive are left alone. `--wait-for-pid N` first waits for
 * process N to end (the detached reaper a run spawns on exit uses it). Containers labelled as the
 * lab's whose owner is gone are removed even without a record. An engine that cannot be reached is
 * reported, never a failure: clean removes what it can reach and exits 0 (one engine down must not
 * keep the others' leftovers). `--dry-run` lists what it would remove and removes nothing.
 */
import os from "node:os";
import { externalDropAdvice, reapOrphans, type KeptResource } from "../lib/runtime/reaper";
import { isProcessAlive, listRecords } from "../lib/runtime/resource-registry";
import { dockerClientFor, LAB_LABEL, withDockerTimeout } from "../lib/targets/docker/docker-client";
import { endpointFromRef, resolveEndpoint, type DockerEndpoint } from "../lib/targets/docker/endpoint";
import { dropDeadRunsDatabases } from "../lib/targets/external/external-target";
import { has, lastValue, noPositionals, readCommandArgs, refuse, UsageError } from "./cli-args";
import { errorMessage } from "../lib/runtime/error-message";

const USAGE = `Usage: npm run clean -- [--dry-run] [--quiet] [--wait-for-pid PID]

Removes what dead lab runs left behind: embedded servers and their data directories, helper
processes, and the lab's containers on every engine a record names (and the one DOCKER_HOST names);
with DBLAB_POSTGRES_URI set, the databases dead runs left on that server (templates included).
Resources of lab processes that are still running are left alone.

Options:
  --dry-run            list what would be removed; remove nothing
  --quiet              print only what could not be reached
  --wait-for-pid PID   first wait for process PID to end (the reaper a run leaves behind uses it)
  --help               show this help`;

const CLEAN_OPTIONS = {
  help: { type: "boolean", short: "h" },
  "dry-run": { type: "boolean" },
  quiet: { type: "boolean" },
  "wait-for-pid": { type: "string" },
} as const;

export interface CleanArgs {
  readonly help: boolean;
  readonly dryRun: boolean;
  readonly quiet: boolean;
  readonly waitForPid?: number;
}

export function parseCleanArgs(argv: readonly string[]): CleanArgs {
  const parsed = readCommandArgs(argv, CLEAN_OPTIONS);
  noPositionals(parsed);
  const rawPid = lastValue(parsed, "wait-for-pid");
  const pid = rawPid === undefined ? undefined : Number(rawPid);
  if (pid !== undefined && !(Number.isInteger(pid) && pid > 0))
    throw new UsageError(`--wait-for-pid needs a process id, got "${rawPid}"`);
  return {
    help: has(parsed, "help"),
    dryRun: has(parsed, "dry-run"),
    quiet: has(parsed, "quiet"),
    waitForPid: pid,
  };
}

/** The engine the environment names, and every engine a remaining record names (remote ones included). */
function enginesToSweep(notReached: string[]): Map<string, DockerEndpoint> {
  const engines = new Map<string, DockerEndpoint>();
  try {
    const current = resolveEndpoint();
    engines.set(current.host, current);
  } catch (error) {
    notReached.push(`the engine the environment names: ${errorMessage(error)}`);
  }
  for (const record of listRecords()) {
    const r = record.resource;
    if (r.type !== "docker-container" || !r.dockerHost || engines.has(r.dockerHost)) continue;
    try {
      engines.set(r.dockerHost, endpointFromRef({ dockerHost: r.dockerHost, dockerContext: r.dockerContext }));
    } catch (error) {
      notReached.push(
        `${r.description}: its engine ${r.dockerHost} is not an address this version accepts (${errorMessage(error)})`,
      );
    }
  }
  return engines;
}

/** Labelled containers whose owner is gone, on one engine, each on its own. */
async function removeUnrecordedContainers(
  endpoint: DockerEndpoint,
  options: { readonly quiet: boolean; readonly dryRun: boolean; readonly listed: ReadonlySet<string> },
  notReached: string[],
  enginesNotReached: string[],
): Promise<number> {
  const { quiet, dryRun } = options;
  const docker = dockerClientFor(endpoint);
  const limit = endpoint.local ? 1500 : 15_000;
  let containers: Awaited<ReturnType<typeof docker.listContainers>>;
  try {
    await withDockerTimeout(docker.ping(), limit, endpoint.host);
    containers = await withDockerTimeout(
      docker.listContainers({ all: true, filters: { label: [LAB_LABEL] } }),
      15_000,
      endpoint.host,
    );
  } catch (error) {
    // No engine on this machine at all is the common case (embedded only): only a remote one, or a
    // local one that has records, is worth a line.
    const hasRecords = listRecords().some((r) => r.resource.type === "docker-container");
    if (!endpoint.local || hasRecords) enginesNotReached.push(`${endpoint.host}: ${errorMessage(error)}`);
    return 0;
  }
  let removed = 0;
  for (const info of containers) {
    const owner = Number(info.Labels[`${LAB_LABEL}.owner-pid`]);
    // A shared remote engine also runs other machines' labs: their pids mean nothing here.
    const ownerHost = info.Labels[`${LAB_LABEL}.owner-host`];
    if (ownerHost !== undefined && ownerHost !== os.hostname()) continue;
    if (owner && isProcessAlive(owner) && owner !== process.pid) continue;
    const where = endpoint.local ? "" : ` on ${endpoint.host}`;
    const what = `container ${info.Id.slice(0, 12)}${where} (${info.Image}, owner pid ${owner || "?"} gone)`;
    if (dryRun) {
      // Its record is listed already (a dry run removes no record first, as a real clean does).
      if (options.listed.has(info.Id)) continue;
      console.log(`would remove ${what}`);
      removed++;
      continue;
    }
    try {
      await withDockerTimeout(docker.getContainer(info.Id).remove({ force: true, v: true }), 30_000, endpoint.host);
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) continue;
      notReached.push(`container ${info.Id.slice(0, 12)} (${info.Image}) on ${endpoint.host}: ${errorMessage(error)}`);
      continue;
    }
    removed++;
    if (!quiet) console.log(`removed ${what}`);
  }
  return removed;
}

/** What a clean would remove, removing nothing: the records of dead owners, then unrecorded containers. */
async function dryRun(engines: Map<string, DockerEndpoint>): Promise<void> {
  const dead = listRecords().filter((r) => !r.ownerAlive);
  // An external database is not the clean's to drop (no password is kept): said as a real clean says it.
  for (const r of dead)
    if (r.resource.type === "external-database")
      console.log(
        `could not reach ${r.resource.description} (owner pid ${r.ownerPid} gone): ${externalDropAdvice(r.resource)}`,
      );
  const orphans = dead.filter((r) => r.resource.type !== "external-database");
  for (const r of orphans) console.log(`would remove ${r.resource.description} (owner pid ${r.ownerPid} gone)`);
  const listed = new Set(
    orphans.flatMap((r) => (r.resource.type === "docker-container" ? [r.resource.containerId] : [])),
  );
  const notReached: string[] = [];
  const enginesNotReached: string[] = [];
  let containers = 0;
  for (const endpoint of engines.values()) {
    containers += await removeUnrecordedContainers(
      endpoint,
      { quiet: false, dryRun: true, listed },
      notReached,
      enginesNotReached,
    );
  }
  const alive = listRecords().filter((r) => r.ownerAlive);
  console.log(
    `clean --dry-run: would remove ${orphans.length + containers} resource(s); removed nothing` +
      (alive.length ? `; ${alive.length} belong to running lab processes and would be left alone` : ""),
  );
  for (const line of enginesNotReached) console.log(`clean: could not look for labelled containers on ${line}`);
}

async function main(): Promise<number> {
  let args: CleanArgs;
  try {
    args = parseCleanArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) return refuse("clean", e);
    throw e;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const { quiet } = args;
  const waitFor = args.waitForPid;
  if (waitFor !== undefined) {
    while (isProcessAlive(waitFor)) await new Promise((r) => setTimeout(r, 200));
  }
  const notReached: string[] = [];
  const engines = enginesToSweep(notReached);
  if (args.dryRun) {
    for (const line of notReached) console.log(`clean: ${line}`);
    await dryRun(engines);
    return 0;
  }
  // A dead run's databases on an external server: only with the URI (the lab keeps no password).
  const uri = process.env.DBLAB_POSTGRES_URI;
  let dropped = 0;
  if (uri) {
    try {
      dropped = (await dropDeadRunsDatabases(uri, (m) => (quiet ? undefined : console.log(m)))).length;
    } catch (error) {
      notReached.push(`the external PostgreSQL DBLAB_POSTGRES_URI names: ${errorMessage(error)}`);
    }
  }
  const kept: KeptResource[] = [];
  const reaped = await reapOrphans({ onKept: (k) => kept.push(k) });
  for (const r of reaped) if (!quiet) console.log(`removed ${r.description} (owner pid ${r.ownerPid} gone)`);
  notReached.push(...kept.map((k) => `${k.description} (owner pid ${k.ownerPid} gone): ${k.reason}`));
  let containers = 0;
  const enginesNotReached: string[] = [];
  for (const endpoint of engines.values()) {
    containers += await removeUnrecordedContainers(
      endpoint,
      { quiet, dryRun: false, listed: new Set() },
      notReached,
      enginesNotReached,
    );
  }
  const alive = listRecords().filter((r) => r.ownerAlive);
  if (!quiet) {
    console.log(
      `clean: removed ${reaped.length + containers + dropped} resource(s)` +
        (alive.length ? `; ${alive.length} belong to running lab processes and were left alone` : ""),
    );
  }
  // Said even with --quiet: a resource left running is something the user must know about. Exit 0:
  // clean did all it could; the records stay, and the next clean or run retries them.
  if (notReached.length) {
    console.log(`clean: could not reach ${notReached.length} resource(s); their records are kept for a later clean:`);
    for (const line of notReached) console.log(`  ${line}`);
  }
  for (const line of enginesNotReached) console.log(`clean: could not look for labelled containers on ${line}`);
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`clean failed: ${errorMessage(error)}`);
      process.exit(1);
    },
  );
}
