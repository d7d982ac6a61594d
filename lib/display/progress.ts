/**
 * Live progress of a run: a self-overwriting bar in the notebook, and JSON lines in DBLAB_PROGRESS_FILE for `npm run
 * reproduce`.
 */
import fs from "node:fs";
import { escapeHtml, liveOutput } from "./output";
import { durationText } from "../stats/format";

export interface ProgressReporter {
  update(done: number, total: number, message: string): void;
  finish(message: string): void;
}

/**
 * `left(done)`: seconds left by the notebook's ETA model refitted so far; else elapsed per finished unit times those
 * left.
 */
export function progressReporter(
  title: string,
  left?: (done: number, total: number) => number | undefined,
): ProgressReporter {
  const output = liveOutput();
  const started = Date.now();
  const file = process.env.DBLAB_PROGRESS_FILE;
  const emit = (event: object) => {
    if (file) fs.appendFileSync(file, `${JSON.stringify({ title, ...event })}\n`);
  };
  const leftOf = (done: number, total: number): { seconds?: number; modelled: boolean } => {
    if (done >= total) return { modelled: false };
    const modelled = left?.(done, total);
    if (modelled !== undefined) return { seconds: modelled, modelled: true };
    const elapsed = (Date.now() - started) / 1000;
    return done > 0 ? { seconds: (elapsed / done) * (total - done), modelled: false } : { modelled: false };
  };
  const render = (done: number, total: number, message: string, remaining: { seconds?: number; modelled: boolean }) => {
    const pct = total ? Math.round((100 * done) / total) : 100;
    const elapsed = (Date.now() - started) / 1000;
    const eta =
      remaining.seconds !== undefined
        ? ` · about ${durationText(remaining.seconds, "estimate")} left${remaining.modelled ? " (model)" : ""}`
        : "";
    output.html(
      `<div style="font-family:monospace"><b>${escapeHtml(title)}</b> ${done}/${total} (${pct} %) · ${elapsed.toFixed(0)} s${eta}<br>` +
        `<div style="background:#eee;width:420px;height:10px"><div style="background:#4c78a8;width:${(420 * pct) / 100}px;height:10px"></div></div>` +
        `<span style="color:#555">${escapeHtml(message)}</span></div>`,
    );
  };
  return {
    update(done, total, message) {
      const remaining = leftOf(done, total);
      render(done, total, message, remaining);
      emit({ done, total, message, ...(remaining.modelled ? { leftSeconds: remaining.seconds } : {}) });
    },
    finish(message) {
      output.html(
        `<div style="font-family:monospace"><b>${escapeHtml(title)}</b> — ${escapeHtml(message)} in ${((Date.now() - started) / 1000).toFixed(1)} s</div>`,
      );
      emit({ finished: true, message });
    },
  };
}
