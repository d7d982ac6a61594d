/** The variants a run compares: each judged index or set is a pair, one with it and one without, in the same rounds. */
import { InputError } from "../../../runtime/input-error";
import type { IndexInfo } from "./catalog";

/** The names CREATE INDEX statements write (schema and quotes dropped), known before a server has the schema. */
export function writtenIndexNames(sql: string): string[] {
  const re = /^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?("?[\w$.]+"?)\s+ON\s/gim;
  return [...sql.matchAll(re)].map((m) => m[1].replace(/"/g, "").split(".").pop() ?? m[1]);
}

/** The names the candidates write ("candidate n" where a statement's cannot be read). */
export const candidateNames = (candidates: readonly string[]): string[] =>
  candidates.map((c, i) => writtenIndexNames(c)[0] ?? `candidate ${i + 1}`);

export interface Variant {
  /** "baseline", "drop:<index>", "set:<name>", "add:<n>", "add:all". */
  readonly id: string;
  readonly label: string;
  readonly change:
    | { readonly kind: "baseline" }
    | { readonly kind: "drop"; readonly indexes: readonly string[] }
    | { readonly kind: "add"; readonly statements: readonly string[] };
}

export interface Judged {
  readonly id: string;
  readonly name: string;
  readonly kind: "existing" | "candidate" | "candidates together" | "set";
  readonly members?: readonly string[];
  readonly withVariant: string;
  readonly withoutVariant: string;
}

export class UnknownIndexError extends InputError {
  override readonly name = "UnknownIndexError";
}

/** The index names `existing` asks for, checked against the schema: an unknown name lists the ones there are. */
export function existingToJudge(
  existing: readonly string[] | "all",
  indexes: readonly IndexInfo[],
  what = "existing",
): string[] {
  const named = (backing: boolean) => indexes.filter((i) => i.constraint === backing).map((i) => i.name);
  // The lab drops only indexes that back no constraint.
  if (existing === "all") return named(false);
  const [secondary, backing] = [named(false).join(", ") || "(none)", named(true).join(", ")];
  for (const name of existing) {
    const found = indexes.find((i) => i.name === name);
    if (!found)
      throw new UnknownIndexError(
        `${what}: there is no index "${name}" in the schema; its secondary indexes are ${secondary}` +
          (backing ? ` (and, backing constraints, ${backing})` : ""),
      );
    if (found.constraint)
      throw new UnknownIndexError(
        `${what}: "${name}" backs ${found.backs ?? "a constraint"}: the schema's rules need it (dropping it changes what the schema allows, or is refused), so the lab does not judge it; take it out of ${what} (the droppable ones are ${secondary})`,
      );
  }
  return [...existing];
}

export interface VariantPlan {
  readonly variants: readonly Variant[];
  readonly judged: readonly Judged[];
}

/** A named set: its indexes all dropped, or candidates (by position) all added. */
interface IndexSet {
  readonly name: string;
  readonly drop: readonly string[];
  readonly add: readonly number[];
}

/** "each": every index and candidate on its own too; "sets": the sets only. */
export type Design = "each" | "sets";
type Groups = Readonly<Record<string, readonly string[]>>;

/** The reader's groups, and under the sets design every judged existing index together (unless a group is that set). */
export function indexSets(
  groups: Groups,
  drops: readonly string[],
  names: readonly string[],
  design: Design,
): IndexSet[] {
  const sets: IndexSet[] = Object.entries(groups).map(([name, members]) => {
    const add = members.map((m) => names.indexOf(m));
    return add.every((i) => i >= 0) ? { name, drop: [], add } : { name, drop: [...members], add: [] };
  });
  const same = (s: IndexSet) => s.drop.length === drops.length && drops.every((d) => s.drop.includes(d));
  if (design === "sets" && drops.length > 1 && !sets.some(same))
    sets.unshift({ name: `all ${drops.length} existing`, drop: [...drops], add: [] });
  return sets;
}

export function checkGroups(groups: Groups, indexes: readonly IndexInfo[], names: readonly string[]): void {
  for (const [name, members] of Object.entries(groups)) {
    const dropped = members.filter((m) => !names.includes(m));
    if (dropped.length) existingToJudge(dropped, indexes, `groups.${name}`);
    if (indexes.some((i) => i.name === name))
      throw new UnknownIndexError(`groups: "${name}" is also an index of the schema; give the group another name`);
  }
}

export const planDesign = (
  p: { readonly candidates: readonly string[]; readonly groups: Groups },
  drops: readonly string[],
  names: readonly string[],
  design: Design,
): VariantPlan => planVariants(drops, p.candidates, names, indexSets(p.groups, drops, names, design), design);

export function planVariants(
  drops: readonly string[],
  candidates: readonly string[],
  candidateNames: readonly string[] = candidates.map((_, i) => `candidate ${i + 1}`),
  sets: readonly IndexSet[] = [],
  design: Design = "each",
): VariantPlan {
  const variants: Variant[] = [{ id: "baseline", label: "the schema as it is", change: { kind: "baseline" } }];
  const judged: Judged[] = [];
  const judge = (
    id: string,
    label: string,
    change: Variant["change"],
    name: string,
    kind: Judged["kind"],
    members?: readonly string[],
  ) => {
    variants.push({ id, label, change });
    const [withVariant, withoutVariant] = change.kind === "drop" ? ["baseline", id] : [id, "baseline"];
    judged.push({ id: name, name, kind, ...(members ? { members } : {}), withVariant, withoutVariant });
  };
  for (const set of sets) {
    const dropping = set.drop.length > 0;
    const members = dropping ? set.drop : set.add.map((i) => candidateNames[i]);
    const change: Variant["change"] = dropping
      ? { kind: "drop", indexes: set.drop }
      : { kind: "add", statements: set.add.map((i) => candidates[i]) };
    const label = `${dropping ? "without" : "with"} ${set.name} (${members.length} indexes)`;
    judge(`set:${set.name}`, label, change, set.name, "set", members);
  }
  // The sets design judges one candidate on its own only when it is the only one (no set holds it).
  const alone = design === "each" || (candidates.length === 1 && !sets.some((s) => s.add.includes(0)));
  if (design === "each")
    for (const index of drops)
      judge(`drop:${index}`, `without ${index}`, { kind: "drop", indexes: [index] }, index, "existing");
  if (alone)
    candidates.forEach((statement, i) => {
      const name = candidateNames[i];
      judge(`add:${i + 1}`, `with ${name}`, { kind: "add", statements: [statement] }, name, "candidate");
    });
  if (candidates.length > 1)
    judge(
      "add:all",
      "with all candidates",
      { kind: "add", statements: candidates },
      "all candidates",
      "candidates together",
    );
  return { variants, judged };
}
