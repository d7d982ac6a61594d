import fs from "node:fs";
import path from "node:path";

/** build/assets/parameters.json's shape: scripts/parameters-extract.ts writes it, scripts/parameters.ts reads it. */

export const PARAMETERS_ASSET = "parameters.json";

export interface ParameterDeclaration {
  readonly name: string;
  /** The member's type with its aliases spelled out (`"auto" | "embedded" | …`). */
  readonly type: string;
  /** The member's doc comment on one line; "" when it has none (a unit test refuses that). */
  readonly meaning: string;
}

export interface ParametersInterface {
  readonly interface: string;
  /** Relative to the project root. */
  readonly file: string;
  readonly parameters: readonly ParameterDeclaration[];
}

/**
 * The files the parameters are declared in: each notebook's `lib/experiments/<name>/params.ts`
 * (sorted) and 00's `lib/compare/params.ts`.
 */
export function parameterSources(sourceRoot: string): string[] {
  const experiments = path.join(sourceRoot, "lib", "experiments");
  const own = fs
    .readdirSync(experiments, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(experiments, e.name, "params.ts")))
    .map((e) => path.join(experiments, e.name, "params.ts"))
    .sort();
  return [...own, path.join(sourceRoot, "lib", "compare", "params.ts")];
}
