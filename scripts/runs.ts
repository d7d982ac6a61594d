/**
 * `npm run runs [-- --notebook 03]`: the runs on disk, newest first, with what a comparison needs
 * to pick two: notebook, profile, target, commit, start, trials ok/failed, verdicts. A removed or
 * half-written run directory is listed as such.
 */
import { listRuns, type StoredRun } from "../lib/results/stored-runs";
import { textTable } from "../lib/compare/format";
import { resultsRoot } from "../lib/results/run-store";

function verdictSummary(r: StoredRun): string {
  if (!r.verdicts) return "no verdicts recorded";
  const counts = new Map<string, number>();
  for (const v of r.verdicts) counts.set(v.verdict, (counts.get(v.verdict) ?? 0) + 1);
  return [...counts].map(([v, n]) => `${n} ${v}`).join(", ");
}

function row(r: StoredRun): string[] {
  const m = r.metadata;
  const targets = [...new Set((m?.servers ?? []).map((s) => `${s.kind}${s.route ? `/${s.route}` : ""}`))].join(", ");
  const ok = r.trials.filter((t) => t.status === "ok").length;
  const failed = r.trials.length - ok;
  const state = r.state === "finished" ? "finished" : `${r.state}: ${r.stateWhy}`;
  return [
    r.id,
    r.notebook || "?",
    m?.profile ?? "?",
    targets || "?",
    m?.gitCommit ?? "?",
    r.startedAt ?? "?",
    `${ok} / ${failed}`,
    verdictSummary(r),
    state,
  ];
}

function main(): number {
  const argv = process.argv.slice(2);
  let notebook: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--help" || a === "-h") {
      console.log(
        "Usage: npm run runs -- [--notebook NN]\n\n" +
          "Lists the runs in data/results (or DBLAB_RESULTS_DIR), newest first.",
      );
      return 0;
    }
    if (a === "--notebook" || a.startsWith("--notebook=")) {
      notebook = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (!notebook || !/^\d{1,2}$/.test(notebook)) {
        console.error(`runs: --notebook needs a notebook number like 03, got "${notebook ?? ""}"`);
        return 2;
      }
      notebook = notebook.padStart(2, "0");
    } else {
      console.error(`runs: unknown argument "${a}"`);
      return 2;
    }
  }
  const runs = listRuns().filter((r) => notebook === undefined || r.notebookId === notebook);
  if (!runs.length) {
    console.log(`no runs${notebook ? ` of notebook ${notebook}` : ""} in ${resultsRoot()}`);
    return 0;
  }
  const head = ["run", "notebook", "profile", "target", "commit", "started", "trials ok / failed", "verdicts", "state"];
  console.log(textTable(head, runs.map(row), ""));
  return 0;
}

if (require.main === module) process.exit(main());
