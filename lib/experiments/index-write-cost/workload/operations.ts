/** The four write operations of seed 000 and the columns each one changes. */

export const OPERATIONS = ["insert", "update_nonindexed", "update_one_field", "update_five_fields"] as const;
export type Operation = (typeof OPERATIONS)[number];
export type UpdateOperation = Exclude<Operation, "insert">;

export const FIELDS = ["field1", "field2", "field3", "field4", "field5"] as const;
export type Field = (typeof FIELDS)[number];
export const FIELD_COUNT = FIELDS.length;

/** Columns incremented by one for each row an update addresses. */
export const UPDATED_COLUMNS: Readonly<Record<UpdateOperation, readonly string[]>> = {
  update_nonindexed: ["counter"],
  update_one_field: ["field1"],
  update_five_fields: FIELDS,
};

/** A value per update operation, from the columns it changes (built once: the timed batches only look it up). */
export const byUpdate = <T>(f: (columns: readonly string[]) => T) =>
  Object.fromEntries(Object.entries(UPDATED_COLUMNS).map(([op, cols]) => [op, f(cols)])) as Record<UpdateOperation, T>;

/** The indexed fields for a number of extra indexes: 1 → field1, 5 → field1..field5. */
export function indexedFields(extraIndexes: number): readonly Field[] {
  return FIELDS.slice(0, extraIndexes);
}

export const OPERATION_LABELS: Readonly<Record<Operation, string>> = {
  insert: "INSERT",
  update_nonindexed: "UPDATE counter (non-indexed)",
  update_one_field: "UPDATE field1",
  update_five_fields: "UPDATE field1..field5",
};
