/**
 * The storage under a container's data directory, measured inside the container: its mount as the
 * container sees it (the volume's filesystem and device) and what an fsync costs there.
 *
 * The probe is dd, the one tool both the official images (GNU coreutils) and the stand-in
 * (busybox) have, one `dd bs=8192 count=1 conv=notrunc,fsync` per sample:
 * - GNU dd reports its own time, taken after the sync, with µs resolution: the median of those.
 * - Debian's busybox dd reports none. Its shell (ash) has $EPOCHREALTIME, so each sample is timed
 *   around the process, and paired with the same dd without conv=fsync: the figure is the
 *   difference of the two medians. Starting a process took 8 ms here (load 9 on 2 cores), so this
 *   figure is coarse: 4.9 ms against 2.4 ms for an fdatasync on the same disk from the host (fsync
 *   also commits the file's mtime to the journal). The header says which probe gave the figure.
 */
import { ignored } from "../../runtime/debug";
import type { ExecOptions, ExecResult } from "../types";
import { FSYNC_PROBES, medianOf, mountOf, parseMounts, type StorageInfo } from "../storage";

const MOUNTS_END = "--- dblab mounts end ---";
const TIMES = "dblab-times";

/** The shell script run in the container: its mounts, then the samples; $1 is the directory. */
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

/** dd's closing line, GNU ("8192 bytes (8.2 kB, 8.0 KiB) copied, 0.00123 s, 6.6 MB/s"), in seconds. */
const DD_TIME = /copied, ([0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?) s/;

/** The figure and how it was taken, from the samples' lines; undefined without a full set. */
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

/** What the script printed → the storage it describes (exported for the unit tests). */
export function parseContainerStorage(dir: string, stdout: string): StorageInfo {
  const [mountsText = "", samples = ""] = stdout.split(MOUNTS_END);
  const { fsType, device } = mountOf(dir, parseMounts(mountsText), { resolve: false });
  const figure = fsyncFigure(samples.split("\n"));
  return { path: dir, fsType, device, ...(figure ?? {}) };
}

/**
 * Measures the storage under `dir` inside the container through `exec`; undefined when the
 * container cannot run the probe (then the header says so rather than showing a guess).
 */
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
