import { afterEach, beforeEach, vi } from "vitest";

/**
 * The clock of a test file's tests: Date (the Worker's too, which runs in the test's isolate) starts at
 * `start` before each test and moves only when the test sets it (`at(ms)`); nothing sleeps.
 */
export function testClock(start: number): { at: (ms: number) => void } {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(start);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  return { at: (ms) => vi.setSystemTime(ms) };
}
