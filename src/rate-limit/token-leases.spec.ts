import { MAX_GRANT, TokenLeases } from './token-leases';

const T0 = 1_000_000;

describe('TokenLeases', () => {
  it('asks for one hit for a key it has never seen, and has nothing to hand out for it', () => {
    const leases = new TokenLeases();

    expect(leases.take('k', 100, T0)).toBeUndefined();
    expect(leases.sizeOfNextGrant('k', T0)).toBe(1);
  });

  it('hands out the granted hit numbers in order, the first to the request that asked', () => {
    const leases = new TokenLeases();

    // Redis counted hits 11 to 14 for this instance; 30 s of the window are left
    const first = leases.granted('k', { last: 14, size: 4, resetInMs: 30_000 }, T0);
    const rest = [1, 2, 3, 4].map((ms) => leases.take('k', 100, T0 + ms));

    expect(first).toEqual({ hits: 11, resetInMs: 30_000 });
    expect(rest).toEqual([
      { hits: 12, resetInMs: 29_999 },
      { hits: 13, resetInMs: 29_998 },
      { hits: 14, resetInMs: 29_997 },
      undefined,
    ]);
  });

  it('keeps each key apart', () => {
    const leases = new TokenLeases();
    leases.granted('a', { last: 2, size: 2, resetInMs: 1_000 }, T0);

    expect(leases.take('b', 100, T0)).toBeUndefined();
    expect(leases.take('a', 100, T0)).toEqual({ hits: 2, resetInMs: 1_000 });
  });

  it('hands out nothing once the window has ended, even hits left over', () => {
    const leases = new TokenLeases();
    leases.granted('k', { last: 10, size: 10, resetInMs: 500 }, T0);

    expect(leases.take('k', 100, T0 + 499)).toEqual({ hits: 2, resetInMs: 1 });
    expect(leases.take('k', 100, T0 + 500)).toBeUndefined();
  });

  it('refuses locally for the rest of the window once the budget is spent, and stops then', () => {
    const leases = new TokenLeases();
    leases.granted('k', { last: 5, size: 1, resetInMs: 2_000 }, T0);

    expect(leases.take('k', 5, T0 + 10)).toEqual({ hits: 6, resetInMs: 1_990 });
    expect(leases.take('k', 5, T0 + 2_000)).toBeUndefined();
    // under a higher limit the same count is not spent: Redis is asked
    leases.granted('j', { last: 5, size: 1, resetInMs: 2_000 }, T0);
    expect(leases.take('j', 6, T0 + 10)).toBeUndefined();
  });

  it('sizes the next grant to about a tenth of a second of the traffic the last one served', () => {
    const leases = new TokenLeases();
    leases.granted('k', { last: 50, size: 50, resetInMs: 60_000 }, T0);
    for (let i = 1; i < 50; i += 1) leases.take('k', 1_000, T0);

    // 50 hits in 20 ms: 250 in 100 ms, within eight times the last grant
    expect(leases.sizeOfNextGrant('k', T0 + 20)).toBe(250);
    // 50 hits in 1 s: 5 in 100 ms
    expect(leases.sizeOfNextGrant('k', T0 + 1_000)).toBe(5);
    // a slow key asks for one hit at a time
    expect(leases.sizeOfNextGrant('k', T0 + 60_000)).toBe(1);
  });

  it('grows a grant at most eightfold, and never past the largest grant', () => {
    const leases = new TokenLeases();
    leases.granted('k', { last: 1, size: 1, resetInMs: 60_000 }, T0);
    leases.granted('big', { last: 900, size: 900, resetInMs: 60_000 }, T0);
    for (let i = 1; i < 900; i += 1) leases.take('big', 10_000, T0);

    expect(leases.sizeOfNextGrant('k', T0)).toBe(8);
    expect(leases.sizeOfNextGrant('big', T0 + 1)).toBe(MAX_GRANT);
  });

  it('sizes by the hits used when the window ended before the grant was used up', () => {
    const leases = new TokenLeases();
    leases.granted('k', { last: 100, size: 100, resetInMs: 50 }, T0);
    for (let i = 0; i < 9; i += 1) leases.take('k', 1_000, T0 + 10);

    // 10 hits used in 50 ms: 20 in 100 ms
    expect(leases.sizeOfNextGrant('k', T0 + 50)).toBe(20);
  });
});
