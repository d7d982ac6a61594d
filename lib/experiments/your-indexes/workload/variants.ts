/**
 * The variants a run compares, all built from the same loaded template: the schema as it is (the
 * baseline), the schema without one of its indexes (one variant per judged index), with one
 * candidate, and with all candidates. Each judged index is a pair of variants, one with it and one
 * without, that run in the same round.
 */
import { InputError } from "../../../runtime/input-error";
import type { IndexInfo } from "./catalog";

export type VariantChange =
  | { readonly kind: "baseline" }
  | { readonly kind: "drop"; readonly index: string }
  | { readonly kind: "add"; readonly statements: readonly string[] };

/**
 * The index names CREATE INDEX statements in `sql` write, in order (a schema-qualified or quoted
 * name reduced to the name, as the catalog lists it); an unnamed CREATE INDEX gives none. Read
 * from the text, for what is known before a server has the schema: the ETA's count of indexes to
 * drop, a candidate's label until the server names it.
 */
export function writtenIndexNames(sql: string): string[] {
  const re = /^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?("?[\w$.]+"?)\s+ON\s/gim;
  return [...sql.matchAll(re)].map((m) => m[1].replace(/"/g, "").split(".").pop() ?? m[1]);
}

export interface Variant {
  /** Short and stable: "baseline", "drop:<index>", "add:<n>", "add:all". */
  readonly id: string;
  readonly label: string;
  readonly change: VariantChange;
}

/** One index (or the candidates together) judged: the variant with it and the one without. */
export interface Judged {
  readonly id: string;
  /** The index's name, or "all candidates". */
  readonly name: string;
  readonly kind: "existing" | "candidate" | "candidates together";
  readonly withVariant: string;
  readonly withoutVariant: string;
}

export class UnknownIndexError extends InputError {
  override readonly name = "UnknownIndexError";
}

/** Secondary indexes the lab may drop: those that back no constraint. */
export function droppable(indexes: readonly IndexInfo[]): IndexInfo[] {
  return indexes.filter((i) => !i.constraint);
}

/** The index names `existing` asks for, checked against the schema: an unknown name lists the ones there are. */
export function existingToJudge(existing: readonly string[] | "all", indexes: readonly IndexInfo[]): string[] {
  const secondary = droppable(indexes);
  if (existing === "all") return secondary.map((i) => i.name);
  for (const name of existing) {
    const found = indexes.find((i) => i.name === name);
    if (!found) {
      throw new UnknownIndexError(
        `existing: there is no index "${name}" in the schema; its secondary indexes are ` +
          `${secondary.map((i) => i.name).join(", ") || "(none)"}` +
          (indexes.length > secondary.length
            ? ` (and, backing constraints, ${indexes
                .filter((i) => i.constraint)
                .map((i) => i.name)
                .join(", ")})`
            : ""),
      );
    }
    if (found.constraint)
      throw new UnknownIndexError(
        `existing: "${name}" backs ${found.backs ?? "a constraint"}: the schema's rules need it (dropping it ` +
          `changes what the schema allows, or is refused), so the lab does not judge it; take it out of existing (the droppable ones are ` +
          `${secondary.map((i) => i.name).join(", ") || "(none)"})`,
      );
  }
  return [...existing];
}

export interface VariantPlan {
  readonly variants: readonly Variant[];
  readonly judged: readonly Judged[];
}

/** `candidateNames[i]`: the name candidate i creates (known once it was built), for the labels. */
export function planVariants(
  drops: readonly string[],
  candidates: readonly string[],
  candidateNames: readonly string[] = candidates.map((_, i) => `candidate ${i + 1}`),
): VariantPlan {
  const variants: Variant[] = [{ id: "baseline", label: "the schema as it is", change: { kind: "baseline" } }];
  const judged: Judged[] = [];
  for (const index of drops) {
    const id = `drop:${index}`;
    variants.push({ id, label: `without ${index}`, change: { kind: "drop", index } });
    judged.push({ id: index, name: index, kind: "existing", withVariant: "baseline", withoutVariant: id });
  }
  candidates.forEach((statement, i) => {
    const id = `add:${i + 1}`;
    variants.push({ id, label: `with ${candidateNames[i]}`, change: { kind: "add", statements: [statement] } });
    judged.push({
      id: candidateNames[i],
      name: candidateNames[i],
      kind: "candidate",
      withVariant: id,
      withoutVariant: "baseline",
    });
  });
  if (candidates.length > 1) {
    variants.push({ id: "add:all", label: "with all candidates", change: { kind: "add", statements: candidates } });
    judged.push({
      id: "all candidates",
      name: "all candidates",
      kind: "candidates together",
      withVariant: "add:all",
      withoutVariant: "baseline",
    });
  }
  return { variants, judged };
}
