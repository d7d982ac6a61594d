/**
 * reports/index.html: every run found in data/results/, newest first — date, profile, target,
 * commit, per notebook its verdict counts, its reports (reports/<run-id>/NN-….html and .ipynb, when
 * `npm run reproduce` made them) and the `npm run compare` command between it and the notebook's
 * previous run. Built from what is on disk, so it lists runs made in the Notebook UI too, and a
 * run of reproduce whose notebook stopped before recording anything still shows from its run.json.
 */
import fs from "node:fs";
import path from "node:path";
import { verdictCounts } from "../lib/display/claims";
import { escapeHtml } from "../lib/display/output";
import { listRuns, type StoredRun } from "../lib/results/stored-runs";

/** What reproduce's run.json says about a notebook that the results folder cannot (status, time, problem). */
export interface IndexedNotebook {
  readonly id: string;
  readonly status: string;
  readonly seconds: number | null;
  readonly problem?: string;
}

interface RunJson {
  readonly runId: string;
  readonly profile: string;
  readonly commit?: string;
  readonly startedAt?: string;
  readonly overrides?: Record<string, unknown>;
  readonly notebooks: readonly IndexedNotebook[];
}

/** One line of the index: a notebook's run, with its reports where they exist. */
interface Entry {
  readonly notebookId: string;
  readonly notebook: string;
  readonly stored?: StoredRun;
  readonly fromRunJson?: IndexedNotebook;
  readonly html?: string;
  readonly ipynb?: string;
  readonly pdf?: string;
}

interface Group {
  readonly id: string;
  readonly startedAt?: string;
  readonly profile?: string;
  readonly commit?: string;
  readonly overrides?: Record<string, unknown>;
  readonly entries: Entry[];
}

/**
 * The run a stored notebook run belongs to: reproduce gives every notebook of a run the same
 * DBLAB_RUN_ID, and the results folder is `<that id>_<notebook>_<hex>`.
 */
export function groupId(storedId: string): string {
  return /^(.+?)_\d\d-[a-z0-9-]+_[0-9a-f]+$/.exec(storedId)?.[1] ?? storedId;
}

function readRunJson(file: string): RunJson | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, "utf8")) as RunJson;
    return typeof value.runId === "string" && Array.isArray(value.notebooks) ? value : undefined;
  } catch {
    return undefined; // no run.json, or one being written: the results folder still describes the run
  }
}

/** Reports of `notebook` for run `group`: in its own folder, or at the top for the run the top's run.json names. */
function reportFiles(
  reportsDir: string,
  group: string,
  notebook: string,
  topRunId: string | undefined,
): Pick<Entry, "html" | "ipynb" | "pdf"> {
  const folders = [path.join(reportsDir, group), ...(topRunId === group ? [reportsDir] : [])];
  for (const folder of folders) {
    const html = path.join(folder, `${notebook}.html`);
    const ipynb = path.join(folder, `${notebook}.ipynb`);
    if (fs.existsSync(html) || fs.existsSync(ipynb)) {
      const rel = (f: string) =>
        fs.existsSync(f) ? path.relative(reportsDir, f).split(path.sep).join("/") : undefined;
      return { html: rel(html), ipynb: rel(ipynb), pdf: rel(path.join(folder, `${notebook}.pdf`)) };
    }
  }
  return {};
}

/** Every run on disk, grouped by reproduce run, newest first. */
export function indexGroups(reportsDir: string, resultsDir: string): Group[] {
  const top = readRunJson(path.join(reportsDir, "run.json"));
  const groups = new Map<string, Group>();
  const groupFor = (id: string, seed: Partial<Group>): Group => {
    let g = groups.get(id);
    if (!g) {
      g = { id, entries: [], ...seed };
      groups.set(id, g);
    }
    return g;
  };
  // reproduce runs first: their run.json names the notebooks in the order they ran.
  const runJsons = fs.existsSync(reportsDir)
    ? fs
        .readdirSync(reportsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => readRunJson(path.join(reportsDir, d.name, "run.json")))
        .filter((r): r is RunJson => r !== undefined)
    : [];
  if (top && !runJsons.some((r) => r.runId === top.runId)) runJsons.push(top);
  const stored = listRuns(resultsDir);
  for (const r of runJsons) {
    const g = groupFor(r.runId, {
      startedAt: r.startedAt,
      profile: r.profile,
      commit: r.commit,
      overrides: r.overrides,
    });
    for (const nb of r.notebooks) {
      const run = stored.find((s) => groupId(s.id) === r.runId && s.notebookId === nb.id);
      const notebook = run?.notebook ?? notebookName(nb.id, stored);
      g.entries.push({
        notebookId: nb.id,
        notebook,
        stored: run,
        fromRunJson: nb,
        ...reportFiles(reportsDir, r.runId, notebook, top?.runId),
      });
    }
  }
  for (const run of stored) {
    const id = groupId(run.id);
    const g = groupFor(id, {
      startedAt: run.startedAt,
      profile: run.metadata?.profile,
      commit: run.metadata?.gitCommit,
    });
    if (g.entries.some((e) => e.stored?.id === run.id)) continue;
    g.entries.push({
      notebookId: run.notebookId,
      notebook: run.notebook,
      stored: run,
      ...reportFiles(reportsDir, id, run.notebook, top?.runId),
    });
  }
  const time = (g: Group) => Date.parse(g.startedAt ?? "") || 0;
  return [...groups.values()]
    .map((g) => ({ ...g, entries: [...g.entries].sort((a, b) => a.notebookId.localeCompare(b.notebookId)) }))
    .sort((a, b) => time(b) - time(a) || (a.id < b.id ? 1 : -1));
}

function notebookName(id: string, stored: readonly StoredRun[]): string {
  return stored.find((s) => s.notebookId === id)?.notebook ?? id;
}

function targetOf(runs: readonly (StoredRun | undefined)[]): string {
  const kinds = new Set(runs.flatMap((r) => r?.metadata?.servers?.map((s) => s.kind) ?? []));
  return [...kinds].join(", ") || "—";
}

function statusOf(e: Entry): string {
  if (e.fromRunJson) return e.fromRunJson.status;
  return e.stored?.state ?? "—";
}

const cmd = (a: string, b: string) => `npm run compare -- ${a} ${b}`;

/** The index page's HTML. */
export function indexHtml(groups: readonly Group[]): string {
  // A notebook's previous run, for the compare command: the next older group with a stored run of it.
  const previous = (gi: number, notebookId: string): StoredRun | undefined => {
    for (const g of groups.slice(gi + 1)) {
      const e = g.entries.find((x) => x.notebookId === notebookId && x.stored?.state === "finished");
      if (e?.stored) return e.stored;
    }
    return undefined;
  };
  const sections = groups
    .map((g, gi) => {
      const rows = g.entries
        .map((e) => {
          const link = (file: string | undefined, text: string) =>
            file ? `<a href="${escapeHtml(file)}">${text}</a>` : "";
          const files =
            [link(e.html, "report"), link(e.ipynb, "notebook"), link(e.pdf, "PDF")].filter(Boolean).join(" · ") ||
            "no report";
          const verdicts = e.stored?.verdicts ? verdictCounts(e.stored.verdicts) : "no verdicts recorded";
          const before = e.stored ? previous(gi, e.notebookId) : undefined;
          const compare =
            e.stored && before ? `<code class="cmd">${escapeHtml(cmd(before.id, e.stored.id))}</code>` : "";
          const seconds = e.fromRunJson?.seconds;
          const status = statusOf(e);
          return (
            `<tr class="${escapeHtml(status.replace(/\s+/g, "-"))}"><td>${escapeHtml(e.notebook)}</td>` +
            `<td class="status">${escapeHtml(status)}${seconds != null ? ` · ${Math.round(seconds)} s` : ""}</td>` +
            `<td class="verdicts">${escapeHtml(verdicts)}</td><td>${files}</td><td>${compare}</td>` +
            `<td>${escapeHtml(e.fromRunJson?.problem ?? "")}</td></tr>`
          );
        })
        .join("\n");
      const overrides =
        g.overrides && Object.keys(g.overrides).length
          ? ` · overrides <code>${escapeHtml(JSON.stringify(g.overrides))}</code>`
          : "";
      return (
        `<section class="run" id="run-${escapeHtml(g.id)}"><h2>${escapeHtml(g.startedAt?.replace("T", " ").replace(/\.\d+Z$/, " UTC") ?? g.id)}</h2>` +
        `<p>run <code>${escapeHtml(g.id)}</code> · profile ${escapeHtml(g.profile ?? "?")} · target ${escapeHtml(targetOf(g.entries.map((e) => e.stored)))}` +
        ` · commit <code>${escapeHtml(g.commit ?? "?")}</code>${overrides}</p>` +
        `<table><thead><tr><th>notebook</th><th>status</th><th>verdicts</th><th>files</th>` +
        `<th>compare with its previous run (copy)</th><th>problem</th></tr></thead><tbody>\n${rows}\n</tbody></table></section>`
      );
    })
    .join("\n");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>DB Write Lab — runs</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;margin-bottom:1rem}th,td{border:1px solid #ccc;padding:.35rem .6rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}tr.ok .status,tr.finished .status{color:#17702a}tr.failed .status,tr.interrupted .status,tr.stopped .status{color:#b00020;font-weight:bold}
h2{font-size:1.1rem;margin:1.5rem 0 .2rem}code{font-size:90%}code.cmd{user-select:all;background:#f5f5f5;padding:1px 4px}
</style></head><body>
<h1>DB Write Lab — every run</h1>
<p>${groups.length} run(s) in the results folder, newest first. A report is there when <code>npm run reproduce</code> made it;
runs from the Notebook UI keep their results only. <code>npm run runs</code> lists the same runs in a terminal.</p>
${sections || "<p>No runs yet: <code>npm run reproduce</code> makes one.</p>"}
</body></html>
`;
}

/** Writes reports/index.html from what is on disk; returns its path. */
export function writeRunIndex(reportsDir: string, resultsDir: string): string {
  const file = path.join(reportsDir, "index.html");
  fs.mkdirSync(reportsDir, { recursive: true });
  fs.writeFileSync(file, indexHtml(indexGroups(reportsDir, resultsDir)));
  return file;
}
