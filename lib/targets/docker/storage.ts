/**
 * The storage under a container's data directory, measured inside it: its mount and an fsync's
 * cost, by dd (both GNU coreutils and busybox have it). GNU dd times itself; busybox's is timed by
 * the shell against the same dd without fsync, which is coarse (docs/targets.md).
 */
import { ignored } from "../../runtime/debug";
import type { ExecOptions, ExecResult } from "../types";
import { FSYNC_PROBES, medianOf, mountOf, parseMounts, type StorageInfo } from "../storage";

const MOUNTS_END = "--- dblab mounts end ---";
const TIMES = "dblab-times";

/** The script run in the container: its mounts, then the samples; $1 is the directory. */
const SCRIPT = [
  'd="$1"; f="$d/.dblab-fsync-probe-$$"',
  "cat /proc/self/mounts",
  `echo "${MOUNTS_END}"`,
  'dd if=/dev/zero of="$f" bs=8192 count=1 2>/dev/null || exit 3',
  "i=0",
  `while [ "$i" -lt ${FSYNC_PROBES} ]; do`,
  "  a=$EPOCHREALTIME",
  '  dd if=/dev/zero of="$f" bs=8192 count=1 conv=notrunc,fsync 2>&1',
  "  b=$EPOCHREALTIME",
  '  dd if=/dev/zero of="$f" bs=8192 count=1 conv=notrunc 2>/dev/null',
  "  c=$EPOCHREALTIME",
  `  echo "${TIMES} $a $b $c"`,
  "  i=$((i + 1))",
  "done",
  'rm -f "$f"',
].join("\n");

/** GNU dd's closing line ("… copied, 0.00123 s, 6.6 MB/s"), in seconds. */
const DD_TIME = /copied, ([0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?) s/;

/** The figure and how it was taken; undefined without a full set. */
function fsyncFigure(lines: readonly string[]): { fsyncMs: number; fsyncProbe: string } | undefined {
  const own = lines.flatMap((line) => {
    const t = DD_TIME.exec(line)?.[1];
    return t === undefined ? [] : [Number(t) * 1000];
  });
  const ownMedian = own.length === FSYNC_PROBES ? medianOf(own) : undefined;
  if (ownMedian !== undefined) return { fsyncMs: ownMedian, fsyncProbe: "dd conv=fsync inside the container" };
  const pairs = lines.flatMap((line) => {
    const parts = line.trim().split(/\s+/);
    if (parts[0] !== TIMES || parts.length !== 4) return [];
    const [a, b, c] = parts.slice(1).map(Number);
    return [a, b, c].every((x) => x !== undefined && Number.isFinite(x)) ? [{ a, b, c }] : [];
  });
  if (pairs.length !== FSYNC_PROBES) return undefined;
  const synced = medianOf(pairs.map((p) => (p.b - p.a) * 1000));
  const plain = medianOf(pairs.map((p) => (p.c - p.b) * 1000));
  if (synced === undefined || plain === undefined || synced <= plain) return undefined;
  return {
    fsyncMs: synced - plain,
    fsyncProbe: "inside the container: dd with conv=fsync less dd without, timed by the shell (coarse)",
  };
}

/** The script's output → the storage it describes. */
export function parseContainerStorage(dir: string, stdout: string): StorageInfo {
  const [mountsText = "", samples = ""] = stdout.split(MOUNTS_END);
  const { fsType, device } = mountOf(dir, parseMounts(mountsText), { resolve: false });
  const figure = fsyncFigure(samples.split("\n"));
  return { path: dir, fsType, device, ...(figure ?? {}) };
}

/** Measures the storage under `dir` inside the container; undefined when it cannot run the probe. */
export async function containerStorage(
  exec: (cmd: string[], options?: ExecOptions) => Promise<ExecResult>,
  dir: string,
): Promise<StorageInfo | undefined> {
  try {
    const result = await exec(["sh", "-c", SCRIPT, "sh", dir], { env: ["LC_ALL=C"], user: "root" });
    if (result.exitCode !== 0) return undefined;
    return parseContainerStorage(dir, result.stdout);
  } catch (error) {
    ignored("docker: measure the container's storage")(error);
    return undefined;
  }
}
