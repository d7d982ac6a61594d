/**
 * Live progress of a run: a bar that overwrites itself in the notebook (tslab.newDisplay), and,
 * when `npm run reproduce` drives the notebook, JSON lines in DBLAB_PROGRESS_FILE for its
 * terminal progress bar.
 */
import fs from "node:fs";
import { escapeHtml, liveOutput } from "./output";

export interface ProgressReporter {
  update(done: number, total: number, message: string): void;
  finish(message: string): void;
}

export function progressReporter(title: string): ProgressReporter {
  const output = liveOutput();
  const started = Date.now();
  const file = process.env.DBLAB_PROGRESS_FILE;
  const emit = (event: object) => {
    if (file) fs.appendFileSync(file, `${JSON.stringify({ title, ...event })}\n`);
  };
  const render = (done: number, total: number, message: string) => {
    const pct = total ? Math.round((100 * done) / total) : 100;
    const elapsed = (Date.now() - started) / 1000;
    const eta = done > 0 && done < total ? ` · about ${Math.round((elapsed / done) * (total - done))} s left` : "";
    output.html(
      `<div style="font-family:monospace"><b>${escapeHtml(title)}</b> ${done}/${total} (${pct} %) · ${elapsed.toFixed(0)} s${eta}<br>` +
        `<div style="background:#eee;width:420px;height:10px"><div style="background:#4c78a8;width:${(420 * pct) / 100}px;height:10px"></div></div>` +
        `<span style="color:#555">${escapeHtml(message)}</span></div>`,
    );
  };
  return {
    update(done, total, message) {
      render(done, total, message);
      emit({ done, total, message });
    },
    finish(message) {
      output.html(
        `<div style="font-family:monospace"><b>${escapeHtml(title)}</b> — ${escapeHtml(message)} in ${((Date.now() - started) / 1000).toFixed(1)} s</div>`,
      );
      emit({ finished: true, message });
    },
  };
}
