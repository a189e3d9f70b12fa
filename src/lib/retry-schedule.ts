/**
 * The retry schedule of webhook deliveries, which e-mails follow too: after a failed attempt n (1..7)
 * the next comes after STEPS[n-1], with +-20% jitter; a Retry-After from the receiver is honoured
 * within one to two times the step. Eight attempts in all; then the delivery has failed.
 */
export const RETRY_STEPS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_STEPS_SECONDS.length + 1;
// Cloudflare Queues delay a retry by at most 12 hours.
export const MAX_QUEUE_DELAY_SECONDS = 12 * 3600;

/** Seconds from a Retry-After header: delta-seconds or an HTTP date; null if absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.round((date - now) / 1000));
}

/**
 * The delay before the attempt after `attempt` (1-based), or null when the attempts are used up.
 * `random` is in [0, 1) and makes the jitter; tests pass their own.
 */
export function nextDelaySeconds(attempt: number, retryAfterSeconds: number | null, random: number = Math.random()): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const step = RETRY_STEPS_SECONDS[attempt - 1]!;
  const delay = retryAfterSeconds === null ? step * (0.8 + 0.4 * random) : Math.min(Math.max(retryAfterSeconds, step), 2 * step);
  return Math.min(Math.round(delay), MAX_QUEUE_DELAY_SECONDS);
}
