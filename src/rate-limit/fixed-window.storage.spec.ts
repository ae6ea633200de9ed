import { FixedWindowStorage } from './fixed-window.storage';

describe('FixedWindowStorage in memory', () => {
  let now: number;
  const storage = () => new FixedWindowStorage(null, 'p', () => now);
  beforeEach(() => {
    now = 1_000_000;
  });

  it('counts a window from its first hit and refuses over the limit until the window ends', async () => {
    const s = storage();
    const hit = () => s.increment('k', 3_600_000, 2, 3_600_000, 'default');
    expect(await hit()).toEqual({
      totalHits: 1,
      timeToExpire: 3600,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    now += 1000;
    expect(await hit()).toEqual({
      totalHits: 2,
      timeToExpire: 3599,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    now += 600_000;
    expect(await hit()).toEqual({
      totalHits: 3,
      timeToExpire: 2999,
      isBlocked: true,
      timeToBlockExpire: 2999,
    });
  });

  it('lets the key in again when the next window starts, not a blocking period after the refusal', async () => {
    const s = storage();
    const hit = () => s.increment('k', 3_600_000, 1, 3_600_000, 'default');
    await hit();
    now += 3_599_000;
    expect((await hit()).isBlocked).toBe(true);
    now += 1000;
    expect(await hit()).toEqual({
      totalHits: 1,
      timeToExpire: 3600,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  });

  it('counts each key and throttler apart', async () => {
    const s = storage();
    await s.increment('a', 1000, 1, 1000, 'default');
    expect((await s.increment('b', 1000, 1, 1000, 'default')).totalHits).toBe(1);
    expect((await s.increment('a', 1000, 1, 1000, 'other')).totalHits).toBe(1);
    expect((await s.increment('a', 1000, 1, 1000, 'default')).totalHits).toBe(2);
  });
});
