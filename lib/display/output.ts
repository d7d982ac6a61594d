/** The one door to the notebook's output: rich output to Jupyter inside a tslab kernel, collected text elsewhere. */
import { AsyncLocalStorage } from "node:async_hooks";

export interface OutputHandle {
  html(html: string): void;
  markdown(markdown: string): void;
  text(text: string): void;
}

type TslabDisplay = OutputHandle;
interface TslabModule {
  display: TslabDisplay;
  newDisplay(): TslabDisplay;
}

function tslab(): TslabModule | undefined {
  if (!isTslabKernel()) return undefined;
  try {
    // Resolved from the project's node_modules: the same module instance the kernel runs.
    return require("tslab") as TslabModule;
  } catch {
    return undefined; // tslab not resolvable: output falls back to stdout
  }
}

/** Inside a tslab kernel process. */
function isTslabKernel(): boolean {
  return (
    /[\\/]tslab[\\/]bin[\\/]tslab$|[\\/]\.bin[\\/]tslab$/.test(process.argv[1] ?? "") && process.argv.includes("kernel")
  );
}

const fallback: OutputHandle = {
  html: () => undefined,
  markdown: (m) => process.stdout.write(`${m}\n`),
  text: (t) => process.stdout.write(`${t}\n`),
};

/** One output as a cell showed it: `bundle` is a showBundle call, the others one call on a handle. */
export type CapturedOutput =
  | { readonly kind: "html" | "markdown" | "text"; readonly content: string }
  | { readonly kind: "bundle"; readonly bundle: MimeBundle };

/**
 * Where output goes while captureOutput runs: tests and headless replays read what a cell shows, which
 * neither tslab nor stdout lets them do. Kept per async context, so captures running at once stay apart.
 */
const captureSink = new AsyncLocalStorage<CapturedOutput[]>();

function capturingHandle(outputs: CapturedOutput[]): OutputHandle {
  return {
    html: (content) => outputs.push({ kind: "html", content }),
    markdown: (content) => outputs.push({ kind: "markdown", content }),
    text: (content) => outputs.push({ kind: "text", content }),
  };
}

/**
 * Runs `fn` with show(), liveOutput() and showBundle() delivering to a list instead of Jupyter or
 * stdout, and returns that list in call order (each write of a live output is one entry). A handle
 * taken inside keeps delivering to the list after `fn` ends; an error of `fn` is thrown as it is.
 */
export async function captureOutput<T>(fn: () => Promise<T>): Promise<{ result: T; outputs: CapturedOutput[] }> {
  const outputs: CapturedOutput[] = [];
  const result = await captureSink.run(outputs, fn);
  return { result, outputs };
}

/** Shows output once. */
export function show(): OutputHandle {
  const captured = captureSink.getStore();
  if (captured) return capturingHandle(captured);
  return tslab()?.display ?? fallback;
}

/** One output keyed by MIME type; a front end draws the richest it knows. */
export type MimeBundle = Readonly<Record<string, unknown>>;

interface TslabJupyter {
  lastWriteDisplayData:
    ((content: { data: MimeBundle; metadata: object; transient: object }, update: boolean) => void) | null;
}

/**
 * Shows one output with several MIME types. tslab's `display.raw` sends one type per message as a
 * string (Jupyter keeps `+json` as an object), so the bundle goes through the writer `raw` calls.
 */
export function showBundle(bundle: MimeBundle): void {
  const captured = captureSink.getStore();
  if (captured) {
    captured.push({ kind: "bundle", bundle });
    return;
  }
  if (!isTslabKernel()) return;
  let jupyter: TslabJupyter;
  try {
    jupyter = require("tslab/dist/jupyter") as TslabJupyter;
  } catch {
    return;
  }
  if (!jupyter.lastWriteDisplayData) throw new Error("tslab is not ready to display (no cell is running)");
  jupyter.lastWriteDisplayData({ data: bundle, metadata: {}, transient: {} }, false);
}

/** An output that each call overwrites in place (live progress). */
export function liveOutput(): OutputHandle {
  const captured = captureSink.getStore();
  if (captured) return capturingHandle(captured);
  return tslab()?.newDisplay() ?? fallback;
}

const HTML_ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

/** A note set off by a coloured bar on its left; `html` goes in as it is. */
export function noteHtml(html: string, color: string, background: string, margin?: string): string {
  const style = `border-left:4px solid ${color};padding:6px 10px;background:${background}`;
  return `<div style="${style}${margin ? `;margin:${margin}` : ""}">${html}</div>`;
}
