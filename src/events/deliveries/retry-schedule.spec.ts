import { afterFailure, MAX_RETRY_AFTER_SECONDS, parseRetryAfter } from './retry-schedule';

describe('afterFailure', () => {
  const schedule = [5, 300, 1800];

  it('waits the scheduled time before each retry, then gives up', () => {
    expect(afterFailure(schedule, 1)).toEqual({ retry: true, delaySeconds: 5 });
    expect(afterFailure(schedule, 2)).toEqual({ retry: true, delaySeconds: 300 });
    expect(afterFailure(schedule, 3)).toEqual({ retry: true, delaySeconds: 1800 });
    expect(afterFailure(schedule, 4)).toEqual({ retry: false });
  });

  it('lets Retry-After lengthen a wait, never shorten it, and at most to a day', () => {
    expect(afterFailure(schedule, 1, 60)).toEqual({ retry: true, delaySeconds: 60 });
    expect(afterFailure(schedule, 2, 60)).toEqual({ retry: true, delaySeconds: 300 });
    expect(afterFailure(schedule, 1, 10 ** 9)).toEqual({
      retry: true,
      delaySeconds: MAX_RETRY_AFTER_SECONDS,
    });
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-11-21T10:00:00Z');

  it('reads delta-seconds and HTTP-dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});
