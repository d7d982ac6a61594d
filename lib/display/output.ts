/**
 * The one door to the notebook's output. Inside a tslab kernel, rich output goes to Jupyter;
 * anywhere else (tests, scripts) it is collected as text so the same code runs headless.
 */

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
    return undefined; // tslab not resolvable from here: output falls back to stdout (text only)
  }
}

/** True inside a tslab kernel process (its entry script is tslab's bin). */
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

/** Shows output once. */
export function show(): OutputHandle {
  return tslab()?.display ?? fallback;
}

/** An output that each call overwrites in place (live progress). */
export function liveOutput(): OutputHandle {
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
