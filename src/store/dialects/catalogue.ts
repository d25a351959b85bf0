/** The `name` column of catalogue rows, lower-cased: callers compare names whatever case the dialect stored (database.md §1.2). */
export function lowerNames(result: { rows: readonly { name: string }[] }): Set<string> {
  return new Set(result.rows.map((r) => r.name.toLowerCase()));
}
