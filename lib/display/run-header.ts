/** The block at the top of every report: parameters, versions, settings, machine, run id. */
import fs from "node:fs";
import path from "node:path";
import { containerFacts, type RunMetadata } from "../results/metadata";
import { speedSpread, type SpeedProbe } from "../stats/speed";
import { disturbances, quietnessText } from "../results/quietness";
import { escapeHtml, show } from "./output";
import { tableHtml } from "./table";

/** How the lab reached a server, and where its engine runs. */
function reachedText(s: RunMetadata["servers"][number]): string {
  const t = s.transport;
  if (t) {
    return t.tls
      ? `${s.address} over ${t.version ?? "TLS"} (${t.cipher ?? "?"}), certificate ${t.certificate} (sslmode=${t.sslMode})`
      : `${s.address} in plaintext (sslmode=${t.sslMode}, from the ${t.sslModeSource})`;
  }
  const c = containerFacts(s);
  if (!c) return s.address;
  const rtt = c.dockerHostRttMs !== undefined ? `, its RTT ${c.dockerHostRttMs.toFixed(2)} ms` : "";
  const lease = c.lease
    ? `, leased: kept at least ${c.lease.boundSeconds} s after the lab's last successful renewal, gone at most ${c.lease.worstCaseSeconds} s after it`
    : "";
  const host = c.dockerHost ? ` · Docker host ${c.dockerHost}${rtt}${lease}` : "";
  if (c.route === "bind-address") {
    return `${s.address} (bound on that address: reachable there by anyone who can reach it)${host}`;
  }
  return `${c.route ?? "?"} ${s.address}${host}`;
}

export function showRunHeader(metadata: RunMetadata, directory: string): void {
  const h = metadata.host;
  const servers = metadata.servers.map((s) => ({
    engine: s.engine,
    version: s.version,
    target: s.kind,
    source: s.source + (s.standInImage ? " (stand-in image)" : ""),
    // Only containers enforce limits.
    limits:
      containerFacts(s) && s.limits?.cpus
        ? `${s.limits.cpus} CPU, ${((s.limits.memoryBytes ?? 0) / 2 ** 30).toFixed(1)} GiB`
        : "none (host's)",
    settings: Object.entries(s.settings ?? {})
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(" "),
    reached: reachedText(s),
    "data directory": s.storage ? storageCell(s.storage) : (s.storageUnmeasured ?? "not measured"),
  }));
  const notes = (metadata.notes ?? []).map((n) => `<li>${escapeHtml(n)}</li>`).join("");
  show().html(
    `<div class="dblab-run" id="dblab-run"><b>Run ${escapeHtml(metadata.runId)}</b> · profile ${escapeHtml(metadata.profile)} · ` +
      `started ${escapeHtml(metadata.startedAt)} · commit ${escapeHtml(metadata.gitCommit)}<br>` +
      `Machine: ${escapeHtml(h.cpuModel)}, ${h.cpus} CPUs, ${h.memoryGiB} GiB, ${escapeHtml(h.platform)} ${escapeHtml(h.kernel)}, Node ${escapeHtml(h.node)}<br>` +
      (metadata.eta ? `ETA before start: ${escapeHtml(metadata.eta)}<br>` : "") +
      partsHtml(metadata) +
      quietnessHtml(metadata) +
      speedHtml(directory) +
      `Results: <code>${escapeHtml(directory)}</code>` +
      tableHtml(servers, { caption: "Servers" }) +
      (notes ? `<ul>${notes}</ul>` : "") +
      `</div>`,
  );
}

/** The resolved parameters, in the reader's units. */
export function showParameters(params: object, profile: string): void {
  const text = (value: unknown): string =>
    Array.isArray(value)
      ? value.join(", ")
      : typeof value === "object" && value !== null
        ? JSON.stringify(value)
        : String(value);
  const rows = Object.entries(params).map(([name, value]) => ({ parameter: name, value: text(value) }));
  show().html(tableHtml(rows, { caption: `Parameters (profile ${profile}, with overrides)` }));
}

/** A resumed run's earlier parts: start, end, outcome, ETA. */
export function partsText(metadata: RunMetadata): string | undefined {
  const parts = metadata.earlierParts ?? [];
  if (!parts.length) return undefined;
  const described = parts.map((p, i) => {
    const ended = p.finishedAt ? `, ${p.outcome ?? "ended"} ${p.finishedAt}` : ", no recorded end (its process died)";
    const eta = p.eta ? ` (ETA then: ${p.eta.replace(/; resumable with .*$/, "")})` : "";
    return `part ${i + 1} started ${p.startedAt ?? "?"}${ended}${eta}`;
  });
  return `Resumed: ${described.join("; ")}; this is part ${parts.length + 1}.`;
}

function partsHtml(metadata: RunMetadata): string {
  const text = partsText(metadata);
  return text ? `${escapeHtml(text)}<br>` : "";
}

function quietnessHtml(metadata: RunMetadata): string {
  const q = metadata.quietness;
  if (!q) return "Quietness: not measured<br>";
  const noisy = disturbances(q);
  return (
    `Quietness: ${escapeHtml(quietnessText(q))}` +
    (noisy.length ? ` — <b>not quiet</b>: ${escapeHtml(noisy.join("; "))}` : " — quiet by these measures") +
    "<br>"
  );
}

/** The speed probe's spread over the run, read from its trials.jsonl (a torn line skipped). */
function speedHtml(directory: string): string {
  let text: string;
  try {
    text = fs.readFileSync(path.join(directory, "trials.jsonl"), "utf8");
  } catch {
    return "";
  }
  const trials: { key: string; speed?: SpeedProbe }[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const t = JSON.parse(line) as { key?: unknown; speed?: SpeedProbe };
      if (typeof t.key === "string") trials.push({ key: t.key, speed: t.speed });
    } catch {
      continue;
    }
  }
  const spread = speedSpread(trials);
  if (!spread) return "Speed state: not measured (no write-path probe in these trials)<br>";
  return (
    `Speed state: ${escapeHtml(spread.text)}` +
    (spread.flagged.length ? " — <b>trials in another speed state</b>: between-run comparisons carry it" : "") +
    "<br>"
  );
}

/** A server's data directory storage; a warning on tmpfs (fsync is free there). */
function storageCell(st: NonNullable<RunMetadata["servers"][number]["storage"]>): string {
  const fsync =
    st.fsyncMs !== undefined
      ? `, fsync ${st.fsyncMs.toFixed(3)} ms${st.fsyncProbe ? ` (${st.fsyncProbe})` : ""}`
      : ", fsync not measured";
  return (
    `${st.fsType} on ${st.device}${fsync}` +
    (st.fsType === "tmpfs" ? " — tmpfs: in memory, fsync is free: WAL and commit costs are not a disk's" : "")
  );
}
