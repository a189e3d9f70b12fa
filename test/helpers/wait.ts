// Waiting for something asynchronous (the queue consumer, the cron, a dev server, a receiver, a page)
// on the condition itself, never on a fixed time: a loaded machine only makes the wait longer. The
// bound is generous because it is only reached when something is broken, and then the failure says
// what was awaited and what was seen last. No imports, so Workers and Node tests share it.

export interface WaitOptions {
  /** How long to keep trying, in ms. */
  timeout?: number;
  /** The pause between two tries, in ms. */
  interval?: number;
}

/**
 * Reads a value until `holds(value)` is true (by default: until it is truthy), and returns that value.
 * Past the bound it throws "waited N s for WHAT; last seen: ...", with the last value read or the
 * last error the read threw.
 */
export async function waitFor<T>(
  what: string,
  read: () => T | Promise<T>,
  holds: (value: T) => boolean = Boolean,
  { timeout = 90_000, interval = 100 }: WaitOptions = {},
): Promise<T> {
  const started = Date.now();
  let last: unknown = "nothing yet";
  for (;;) {
    try {
      const value = await read();
      if (holds(value)) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() - started >= timeout) {
      const seen = last instanceof Error ? `${last.name}: ${last.message}` : JSON.stringify(last)?.slice(0, 2_000);
      throw new Error(`waited ${Math.round((Date.now() - started) / 1000)} s for ${what}; last seen: ${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
