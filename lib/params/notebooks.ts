/**
 * The notebooks the lab runs headless, and how each one's parameters are checked, so that
 * `npm run reproduce` refuses bad input before any server starts.
 */
import { indexWriteCostParams } from "./index-write-cost";
import type { ProfileName } from "./profiles";

export interface NotebookEntry {
  /** Two digits, as in `--only 01`. */
  readonly id: string;
  /** Path relative to the project root. */
  readonly file: string;
  readonly title: string;
  /** Resolves (and checks) the parameters; throws ParameterError on bad input. */
  readonly resolve: (profile: ProfileName, overrides: Record<string, unknown>) => object;
}

export const NOTEBOOKS: readonly NotebookEntry[] = [
  {
    id: "01",
    file: "notebooks/01-index-write-cost.ipynb",
    title: "Index write cost: secondary indexes vs INSERT/UPDATE time",
    resolve: (profile, overrides) => indexWriteCostParams(profile, overrides),
  },
];

export function findNotebook(id: string): NotebookEntry {
  const entry = NOTEBOOKS.find((n) => n.id === id || n.file.includes(`/${id}`));
  if (!entry) {
    throw new Error(`No notebook "${id}". Known: ${NOTEBOOKS.map((n) => n.id).join(", ")}`);
  }
  return entry;
}
