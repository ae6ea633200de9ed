import { EVENT_BUCKET_MS, eventBucket, eventId, isEventId } from './project-event';

describe('event ids', () => {
  it("keeps a click's id (a UUID version 7): the same click, the same event", () => {
    const click = '0192f3c4-a1b2-7c3e-9d5f-6a7b8c9d0e1f';
    expect(eventId(click)).toBe('evt_0192f3c4a1b27c3e9d5f6a7b8c9d0e1f');
    expect(eventId(click)).toBe(eventId(click));
  });

  it('makes a stable id from a uuid and its time, the time first', () => {
    const at = Date.UTC(2026, 10, 27, 12, 0, 0, 123);
    const id = eventId('5F0C6A1E-9D2B-4C7A-8E3F-1B0D2C4A6E8F', at);
    expect(id).toBe(`evt_${at.toString(16).padStart(12, '0')}5f0c6a1e9d2b4c7a8e3f`);
    expect(eventId('5f0c6a1e-9d2b-4c7a-8e3f-1b0d2c4a6e8f', at)).toBe(id);
    expect(isEventId(id)).toBe(true);
  });

  it('makes new ids of the time now and random digits', () => {
    const before = Date.now();
    const a = eventId();
    const b = eventId();
    expect(isEventId(a)).toBe(true);
    expect(a).not.toBe(b);
    const at = parseInt(a.slice(4, 16), 16);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });

  it('puts the ids of one span of time in one bucket', () => {
    const start = Math.ceil(Date.now() / EVENT_BUCKET_MS) * EVENT_BUCKET_MS;
    const bucket = eventBucket(eventId(undefined, start));
    expect(bucket).toBe(start / EVENT_BUCKET_MS);
    expect(eventBucket(eventId(undefined, start + EVENT_BUCKET_MS - 1))).toBe(bucket);
    expect(eventBucket(eventId(undefined, start + EVENT_BUCKET_MS))).toBe(bucket + 1);
    // Any well-formed id has a bucket, random digits too.
    expect(Number.isSafeInteger(eventBucket(`evt_${'f'.repeat(32)}`))).toBe(true);
  });
});
