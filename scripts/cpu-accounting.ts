/**
 * The CPU time a test file's whole process tree used, from a cgroup made for it: every process it
 * forks stays in its cgroup (servers it starts, kernels, a namespace's dockerd), even when reparented,
 * so the count includes what a parent never waits for. Containers are not in it: Docker puts them in
 * cgroups of its own.
 *
 * Why a cgroup and not getrusage: RUSAGE_CHILDREN counts only children that were waited for, and a
 * test file's servers are daemons or run as another user. Wall times alone could not say why the
 * suite was slow: the fault matrix took 656 s alone here with the CPU 46 % idle, and 1,212 s beside
 * another file, so which file costs the CPU has to be measured, not guessed.
 *
 * Written here (no package does it) for cgroup v2 (`cpu.stat`'s usage_usec) and v1 (`cpuacct.usage`).
 * Needs write access to the cgroup filesystem (root, or a delegated subtree); without it every file's
 * CPU time is unknown and the table says so once.
 */
import fs from "node:fs";
import path from "node:path";

interface Hierarchy {
  /** Where new cgroups go: this process's own cgroup in that hierarchy. */
  readonly base: string;
  /** CPU nanoseconds used by the cgroup at `dir`. */
  readonly read: (dir: string) => number | undefined;
}

function ownPath(match: (controllers: string) => boolean): string | undefined {
  try {
    for (const line of fs.readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
      const [, controllers, where] = line.split(":");
      if (where !== undefined && match(controllers)) return where;
    }
  } catch {
    // not Linux
  }
  return undefined;
}

function findHierarchy(): Hierarchy | { missing: string } {
  const v2 = "/sys/fs/cgroup";
  if (fs.existsSync(path.join(v2, "cgroup.controllers"))) {
    const own = ownPath((c) => c === "") ?? "/";
    return {
      base: path.join(v2, own),
      read: (dir) => {
        const m = /^usage_usec (\d+)$/m.exec(fs.readFileSync(path.join(dir, "cpu.stat"), "utf8"));
        return m ? Number(m[1]) * 1000 : undefined;
      },
    };
  }
  for (const mount of ["cpuacct", "cpu,cpuacct", "cpuacct,cpu"]) {
    const root = path.join(v2, mount);
    if (!fs.existsSync(path.join(root, "cpuacct.usage"))) continue;
    const own = ownPath((c) => c.split(",").includes("cpuacct")) ?? "/";
    return {
      base: path.join(root, own),
      read: (dir) => Number(fs.readFileSync(path.join(dir, "cpuacct.usage"), "utf8").trim()),
    };
  }
  return { missing: "no cgroup hierarchy with CPU accounting here" };
}

/** A process still in a file's cgroup after the file's own process exited. */
export interface Straggler {
  readonly pid: number;
  /** Its command line, cut short; empty when it exited while being read. */
  readonly command: string;
}

/** One file's cgroup: `add` its process right after spawning it, `end` once it exited. */
export interface CpuMeter {
  add(pid: number): void;
  /** Processes of the file still running (a server or watcher it left); the cgroup stays. */
  stragglers(): Straggler[];
  /** CPU seconds of everything that ran in it; the cgroup is removed (stragglers moved to the parent). */
  end(): number | undefined;
}

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ").slice(0, 120);
  } catch {
    return "";
  }
}

let hierarchy: Hierarchy | { missing: string } | undefined;

/** Why CPU times are not measured here, or undefined when they are. */
export function cpuAccountingMissing(): string | undefined {
  hierarchy ??= findHierarchy();
  if ("missing" in hierarchy) return hierarchy.missing;
  return undefined;
}

/** A cgroup named `name` for one file, or undefined where none can be made (the reason: cpuAccountingMissing). */
export function cpuMeter(name: string): CpuMeter | undefined {
  hierarchy ??= findHierarchy();
  if ("missing" in hierarchy) return undefined;
  const h = hierarchy;
  const dir = path.join(h.base, name);
  try {
    fs.mkdirSync(dir);
  } catch (e) {
    hierarchy = { missing: `cannot make a cgroup under ${h.base}: ${(e as Error).message}` };
    return undefined;
  }
  let joined = true;
  return {
    add(pid) {
      try {
        fs.writeFileSync(path.join(dir, "cgroup.procs"), String(pid));
      } catch {
        joined = false; // exited already, or not allowed: the count would be wrong, so none is given
      }
    },
    stragglers() {
      try {
        return fs
          .readFileSync(path.join(dir, "cgroup.procs"), "utf8")
          .split("\n")
          .filter(Boolean)
          .map((pid) => ({ pid: Number(pid), command: commandOf(Number(pid)) }));
      } catch {
        return [];
      }
    },
    end() {
      let used: number | undefined;
      try {
        used = joined ? h.read(dir) : undefined;
      } catch {
        used = undefined;
      }
      // What outlived the file (a server it left, removed later by clean) goes back to the parent,
      // or the cgroup cannot be removed.
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          const left = fs.readFileSync(path.join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean);
          for (const pid of left) {
            try {
              fs.writeFileSync(path.join(h.base, "cgroup.procs"), pid);
            } catch {
              // gone meanwhile
            }
          }
          fs.rmdirSync(dir);
          break;
        } catch {
          // a process forked while it was moved: again
        }
      }
      return used === undefined ? undefined : used / 1e9;
    },
  };
}
