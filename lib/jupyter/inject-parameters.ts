/**
 * Papermill-style parameters for TypeScript notebooks: after the one code cell tagged
 * `parameters`, insert a code cell tagged `injected-parameters` that reassigns `profile` and
 * `overrides`. Pure: takes notebook JSON, returns new notebook JSON.
 */

export const PARAMETERS_TAG = "parameters";
export const INJECTED_TAG = "injected-parameters";

export interface NotebookCell {
  cell_type: string;
  source: string | string[];
  metadata?: { tags?: string[]; [key: string]: unknown };
  id?: string;
  outputs?: unknown[];
  execution_count?: number | null;
  [key: string]: unknown;
}

export interface NotebookJson {
  cells: NotebookCell[];
  metadata?: Record<string, unknown>;
  nbformat?: number;
  nbformat_minor?: number;
  [key: string]: unknown;
}

export class NotebookParametersError extends Error {
  override readonly name = "NotebookParametersError";
}

export function cellTags(cell: NotebookCell): string[] {
  const tags = cell.metadata?.tags;
  return Array.isArray(tags) ? tags : [];
}

/** The statements the injected cell runs. */
export function injectedSource(profile: string, overrides: Record<string, unknown>): string {
  return `profile = ${JSON.stringify(profile)};\noverrides = ${JSON.stringify(overrides)};`;
}

/**
 * Returns a copy of `notebook` with an `injected-parameters` cell right after its `parameters`
 * cell (replacing an earlier injected cell, if the notebook was already run this way).
 * Throws NotebookParametersError if there is no code cell tagged `parameters`, or more than one.
 */
export function injectParameters(
  notebook: NotebookJson,
  profile: string,
  overrides: Record<string, unknown>,
  notebookName = "notebook",
): NotebookJson {
  if (!notebook || !Array.isArray(notebook.cells)) {
    throw new NotebookParametersError(`${notebookName}: not a notebook (no "cells" list)`);
  }
  const nb: NotebookJson = structuredClone(notebook);
  nb.cells = nb.cells.filter((c) => !cellTags(c).includes(INJECTED_TAG));
  const tagged = nb.cells
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.cell_type === "code" && cellTags(c).includes(PARAMETERS_TAG));
  if (tagged.length === 0) {
    throw new NotebookParametersError(
      `${notebookName}: no code cell is tagged "${PARAMETERS_TAG}". Tag the cell that declares ` +
        '`let profile = "default";` and `let overrides = {};` (cell metadata "tags": ["parameters"]).',
    );
  }
  if (tagged.length > 1) {
    throw new NotebookParametersError(
      `${notebookName}: ${tagged.length} code cells are tagged "${PARAMETERS_TAG}" ` +
        `(cells ${tagged.map((t) => t.i).join(", ")}); exactly one must be.`,
    );
  }
  const cell: NotebookCell = {
    cell_type: "code",
    execution_count: null,
    metadata: { tags: [INJECTED_TAG] },
    outputs: [],
    source: injectedSource(profile, overrides),
  };
  // nbformat ≥ 4.5 requires a unique id on every cell.
  if ((nb.nbformat ?? 4) > 4 || (nb.nbformat === 4 && (nb.nbformat_minor ?? 0) >= 5)) {
    const taken = new Set(nb.cells.map((c) => c.id));
    let id = INJECTED_TAG;
    for (let n = 2; taken.has(id); n++) id = `${INJECTED_TAG}-${n}`;
    cell.id = id;
  }
  nb.cells.splice(tagged[0].i + 1, 0, cell);
  return nb;
}
