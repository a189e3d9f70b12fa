import { onTestFinished, vi } from "vitest";

/** One line the Worker logged (it logs JSON objects, one a line). */
export interface LogLine {
  level?: string;
  message?: string;
  error?: string;
  request_id?: string;
  [key: string]: unknown;
}

/**
 * For a test that breaks something on purpose: the error and warning lines the Worker logs while the
 * test runs are kept here instead of printed, so a red line in the test output always means something
 * unexpected. The test asserts on what it expected to be logged; the console is restored when it ends.
 */
export function expectedErrorLogs(): LogLine[] {
  const lines: LogLine[] = [];
  const keep = (...args: unknown[]) => {
    const text = args.map(String).join(" ");
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      lines.push({ message: text });
    }
  };
  const error = vi.spyOn(console, "error").mockImplementation(keep);
  const warn = vi.spyOn(console, "warn").mockImplementation(keep);
  onTestFinished(() => {
    error.mockRestore();
    warn.mockRestore();
  });
  return lines;
}
