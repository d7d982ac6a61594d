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
