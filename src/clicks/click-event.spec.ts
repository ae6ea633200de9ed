import { ClickEvent, newClickId, packClicks } from './click-event';
import { monthsBetween } from './clicks.repository';

describe('click batches', () => {
  const clicks: ClickEvent[] = [
    { id: 'a', linkId: '1', projectId: 'p1', clickedAt: Date.UTC(2026, 10, 23, 10, 0, 0, 123), referrer: null, userAgent: 'UA', ip: '10.0.0.0', isBot: false },
    { id: 'b', linkId: '2', projectId: 'p1', clickedAt: Date.UTC(2026, 10, 23, 10, 0, 1), referrer: 'https://r.example/', userAgent: 'UA', ip: null, isBot: true },
    { id: 'c', linkId: '1', projectId: 'p2', clickedAt: Date.UTC(2026, 10, 23, 10, 0, 2), referrer: 'https://r.example/', userAgent: null, ip: '::', isBot: false },
  ];

  it('pack into columns, listing repeated strings once (-1 for none)', () => {
    expect(packClicks(clicks)).toEqual({
      v: 2,
      ids: ['a', 'b', 'c'],
      links: ['1', '2', '1'],
      at: [Date.UTC(2026, 10, 23, 10, 0, 0, 123), Date.UTC(2026, 10, 23, 10, 0, 1), Date.UTC(2026, 10, 23, 10, 0, 2)],
      projects: ['p1', 'p2'],
      project: [0, 0, 1],
      referrers: ['https://r.example/'],
      referrer: [-1, 0, 0],
      agents: ['UA'],
      agent: [0, 0, -1],
      ips: ['10.0.0.0', null, '::'],
      bots: [0, 1, 0],
    });
  });
});

describe('newClickId', () => {
  const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('is a version 7 UUID carrying the time, ordered by it, and unique', () => {
    const at = Date.UTC(2026, 10, 23, 10, 0, 0, 123);
    const id = newClickId(at);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    expect(newClickId(at + 1) > newClickId(at)).toBe(true);
    expect(new Set(Array.from({ length: 1000 }, () => newClickId(at))).size).toBe(1000);
  });

  it('counts through rand_a and the variant group within one millisecond, the process bits fixed', () => {
    const at = Date.UTC(2026, 10, 23, 10, 0, 0, 124);
    const ids = Array.from({ length: 20_000 }, () => newClickId(at));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(UUID_V7);
    // The 26-bit sequence: 12 bits after the version digit, 14 after the variant bits.
    const sequenceOf = (id: string) => (parseInt(id.slice(15, 18), 16) << 14) | (parseInt(id.slice(19, 23), 16) & 0x3fff);
    const steps = ids.slice(1).map((id, i) => (sequenceOf(id) - sequenceOf(ids[i]) + 2 ** 26) % 2 ** 26);
    expect(new Set(steps)).toEqual(new Set([1]));
    expect(new Set(ids.map((id) => id.slice(24))).size).toBe(1);
  });
});

describe('monthsBetween', () => {
  it('lists the months from the first time to the last', () => {
    expect(monthsBetween(Date.UTC(2026, 10, 30, 23), Date.UTC(2026, 10, 30, 23, 59))).toEqual(['2026-11-01']);
    expect(monthsBetween(Date.UTC(2026, 10, 30, 23), Date.UTC(2027, 0, 1))).toEqual(['2026-11-01', '2026-12-01', '2027-01-01']);
  });
});
