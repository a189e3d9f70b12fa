// Pages of a list, by number or by cursor: what a query needs to know of the page it serves.

/** A position in a list: the sort it belongs to, the sort value of a row and the row's id. */
export interface Cursor {
  sort: string;
  value: string | number;
  id: string;
}

/**
 * A page asked for by number (`page[number]`) or by cursor (`page[after]` / `page[before]`; an empty
 * `page[after]` is the first page). In cursor mode the list query records on `window` what the links
 * need: whether rows lie before and after the page, and the cursors of its first and last rows.
 */
export interface Page {
  number: number;
  size: number;
  cursor?: { direction: "after" | "before"; at: Cursor | null };
  window?: { hasPrev: boolean; hasNext: boolean; first: string | null; last: string | null };
}

// Opaque to clients, but not secret: base64url of JSON [sort, value, id].
export function encodeCursor(c: Cursor): string {
  return btoa(JSON.stringify([c.sort, c.value, c.id]))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

export function decodeCursor(text: string): Cursor | null {
  try {
    const json = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const [sort, value, id, ...rest] = JSON.parse(json) as unknown[];
    if (rest.length || typeof sort !== "string" || typeof id !== "string" || id.length > 64) return null;
    if (typeof value !== "string" && !(typeof value === "number" && Number.isSafeInteger(value))) return null;
    return { sort, value, id };
  } catch {
    return null;
  }
}

export function offsetOf(page: Page): number {
  return page.cursor ? 0 : (page.number - 1) * page.size;
}
