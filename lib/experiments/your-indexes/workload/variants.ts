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
  | { readonly kind: "drop"; readonly indexes: readonly string[] }
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

/** One index (or a set of them judged together) judged: the variant with it and the one without. */
export interface Judged {
  readonly id: string;
  /** The index's name, "all candidates", or the set's name. */
  readonly name: string;
  readonly kind: "existing" | "candidate" | "candidates together" | "set";
  /** A set's indexes. */
  readonly members?: readonly string[];
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
export function existingToJudge(
  existing: readonly string[] | "all",
  indexes: readonly IndexInfo[],
  /** The parameter that names them, for the message ("existing", "groups.reporting"). */
  what = "existing",
): string[] {
  const secondary = droppable(indexes);
  if (existing === "all") return secondary.map((i) => i.name);
  for (const name of existing) {
    const found = indexes.find((i) => i.name === name);
    if (!found) {
      throw new UnknownIndexError(
        `${what}: there is no index "${name}" in the schema; its secondary indexes are ` +
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
        `${what}: "${name}" backs ${found.backs ?? "a constraint"}: the schema's rules need it (dropping it ` +
          `changes what the schema allows, or is refused), so the lab does not judge it; take it out of ${what} (the droppable ones are ` +
          `${secondary.map((i) => i.name).join(", ") || "(none)"})`,
      );
  }
  return [...existing];
}

export interface VariantPlan {
  readonly variants: readonly Variant[];
  readonly judged: readonly Judged[];
}

/** A named set judged together: its indexes all dropped (`drop`), or candidates (by position, `add`) all added. */
export interface IndexSet {
  readonly name: string;
  readonly drop: readonly string[];
  readonly add: readonly number[];
}

/**
 * The design: "each" judges every existing index and candidate on its own (and all candidates
 * together), beside the sets; "sets" judges the sets only.
 */
export type Design = "each" | "sets";

/** The name of the set of every judged existing index, when the sets design judges them together. */
export const existingSetName = (n: number): string => `all ${n} existing`;

/**
 * The sets a run judges: the reader's groups (members that are candidates' names are added, the
 * others dropped), and under the sets design every judged existing index together, unless a group
 * is that same set already.
 */
export function indexSets(
  groups: Readonly<Record<string, readonly string[]>>,
  drops: readonly string[],
  candidateNames: readonly string[],
  design: Design,
): IndexSet[] {
  const sets: IndexSet[] = Object.entries(groups).map(([name, members]) => {
    const add = members.map((m) => candidateNames.indexOf(m));
    return add.every((i) => i >= 0) ? { name, drop: [], add } : { name, drop: [...members], add: [] };
  });
  const same = (s: IndexSet) => s.drop.length === drops.length && drops.every((d) => s.drop.includes(d));
  if (design === "sets" && drops.length > 1 && !sets.some(same))
    sets.unshift({ name: existingSetName(drops.length), drop: [...drops], add: [] });
  return sets;
}

/** Every group's members that are not candidates, checked against the schema like `existing`. */
export function checkGroups(
  groups: Readonly<Record<string, readonly string[]>>,
  indexes: readonly IndexInfo[],
  candidateNames: readonly string[],
): void {
  for (const [name, members] of Object.entries(groups)) {
    const dropped = members.filter((m) => !candidateNames.includes(m));
    if (dropped.length) existingToJudge(dropped, indexes, `groups.${name}`);
    const clash = indexes.find((i) => i.name === name);
    if (clash)
      throw new UnknownIndexError(`groups: "${name}" is also an index of the schema; give the group another name`);
  }
}

/** `candidateNames[i]`: the name candidate i creates (known once it was built), for the labels. */
export function planVariants(
  drops: readonly string[],
  candidates: readonly string[],
  candidateNames: readonly string[] = candidates.map((_, i) => `candidate ${i + 1}`),
  sets: readonly IndexSet[] = [],
  design: Design = "each",
): VariantPlan {
  const variants: Variant[] = [{ id: "baseline", label: "the schema as it is", change: { kind: "baseline" } }];
  const judged: Judged[] = [];
  for (const set of sets) {
    const id = `set:${set.name}`;
    const dropping = set.drop.length > 0;
    const members = dropping ? set.drop : set.add.map((i) => candidateNames[i]);
    variants.push({
      id,
      label: `${dropping ? "without" : "with"} ${set.name} (${members.length} indexes)`,
      change: dropping
        ? { kind: "drop", indexes: set.drop }
        : { kind: "add", statements: set.add.map((i) => candidates[i]) },
    });
    judged.push({
      id: set.name,
      name: set.name,
      kind: "set",
      members,
      withVariant: dropping ? "baseline" : id,
      withoutVariant: dropping ? id : "baseline",
    });
  }
  // The sets design judges one candidate on its own only when it is the only one (no set holds it).
  if (design === "sets") {
    if (candidates.length === 1 && !sets.some((s) => s.add.includes(0)))
      return withCandidates(variants, judged, candidates, candidateNames, false);
    if (candidates.length > 1) return withCandidates(variants, judged, candidates, candidateNames, true, true);
    return { variants, judged };
  }
  for (const index of drops) {
    const id = `drop:${index}`;
    variants.push({ id, label: `without ${index}`, change: { kind: "drop", indexes: [index] } });
    judged.push({ id: index, name: index, kind: "existing", withVariant: "baseline", withoutVariant: id });
  }
  return withCandidates(variants, judged, candidates, candidateNames, candidates.length > 1);
}

/** Each candidate on its own (unless `onlyTogether`), and all of them together when `together`. */
function withCandidates(
  variants: Variant[],
  judged: Judged[],
  candidates: readonly string[],
  candidateNames: readonly string[],
  together: boolean,
  onlyTogether = false,
): VariantPlan {
  if (!onlyTogether)
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
  if (together) {
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
