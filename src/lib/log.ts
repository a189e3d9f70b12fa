/**
 * What of an error may be logged. Drizzle's query errors carry the bound parameters in their message
 * (webhook secrets, key hashes, report text): log the driver's own error and the SQL, never the values.
 */
export function loggable(err: Error): { error: string; query?: string; stack?: string } {
  const { cause, query } = err as { cause?: unknown; query?: string };
  if (typeof query === "string") return { error: String(cause ?? "query failed"), query, stack: (cause as Error | undefined)?.stack };
  return { error: String(err), stack: err.stack };
}
