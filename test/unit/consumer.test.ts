import { describe, expect, it } from "vitest";
import { retryDelaySeconds } from "../../src/events/consumer";

describe("retryDelaySeconds", () => {
  it.each([
    [1, 10],
    [2, 20],
    [3, 40],
    [6, 320],
    [7, 600],
    [50, 600],
    [0, 10],
  ])("after attempt %i waits %i s", (attempts, seconds) => {
    expect(retryDelaySeconds(attempts)).toBe(seconds);
  });
});
