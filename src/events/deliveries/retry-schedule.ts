/** The longest wait a receiver's `Retry-After` can impose on one retry: a day. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

export type RetryDecision = { retry: true; delaySeconds: number } | { retry: false };

/**
 * What follows a failed attempt (API.md §10). `WEBHOOK_RETRY_SCHEDULE` lists the wait
 * before each retry: with `5,300` a delivery is tried at most three times, and after the
 * third failure it is dead. `attemptsInSchedule` counts the attempts made under the
 * current schedule, this one included (a manual retry starts a new schedule). A
 * receiver's `Retry-After` can only lengthen a wait, and by at most a day.
 */
export function afterFailure(
  schedule: readonly number[],
  attemptsInSchedule: number,
  retryAfterSeconds?: number,
): RetryDecision {
  if (attemptsInSchedule > schedule.length) return { retry: false };
  const scheduled = schedule[attemptsInSchedule - 1];
  const asked =
    retryAfterSeconds === undefined ? 0 : Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS);
  return { retry: true, delaySeconds: Math.max(scheduled, asked) };
}

/** `Retry-After` as seconds from `now`: delta-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  // an HTTP-date names its weekday and month: `Sat, 21 Nov 2026 10:01:00 GMT`
  const date = /^[A-Za-z]{3}, /.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}
