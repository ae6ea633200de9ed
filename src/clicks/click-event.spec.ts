import { createHash } from 'node:crypto';
import {
  ClickEvent,
  PackedClicksV2,
  clickColumns,
  clickId,
  clickIdOf,
  nextClickSequence,
  packClicks,
} from './click-event';
import { batchToken, blockToken } from './clicks.repository';

describe('click batches', () => {
  const t0 = Date.UTC(2026, 10, 23, 10, 0, 0, 123);
  const clicks: ClickEvent[] = [
    {
      id: 'a',
      linkId: '1',
      projectId: 'p1',
      clickedAt: t0,
      referrer: null,
      userAgent: 'UA',
      ip: '10.0.0.0',
      isBot: false,
    },
    {
      id: 'b',
      linkId: '2',
      projectId: 'p1',
      clickedAt: t0 + 877,
      referrer: 'https://r.example/',
      userAgent: 'UA',
      ip: null,
      isBot: true,
    },
    {
      id: 'c',
      linkId: '1',
      projectId: 'p2',
      clickedAt: t0 - 5,
      referrer: 'https://r.example/',
      userAgent: null,
      ip: '10.0.0.0',
      isBot: false,
    },
  ];
  // The columns that read the same in every layout.
  const shared = {
    links: ['1', '2', '1'],
    projects: ['p1', 'p2'],
    project: [0, 0, 1],
    referrers: ['https://r.example/'],
    referrer: [-1, 0, 0],
    agents: ['UA'],
    agent: [0, 0, -1],
    bots: [0, 1, 0] as (0 | 1)[],
  };
  const ipColumns = { ips: ['10.0.0.0'], ip: [0, -1, 0] };
  const columns = { ids: ['a', 'b', 'c'], at: [t0, t0 + 877, t0 - 5], ...shared, ...ipColumns };

  it('pack into columns, times from the first, every repeated string listed once (-1 for none)', () => {
    expect(packClicks(clicks)).toEqual({
      v: 3,
      ids: ['a', 'b', 'c'],
      at0: t0,
      at: [0, 877, -5],
      ...shared,
      ...ipColumns,
    });
    expect(clickColumns(JSON.parse(JSON.stringify(packClicks(clicks))))).toEqual(columns);
  });

  it('carry the ids of this process as sequence steps and make the same ids on the way in', () => {
    const first = nextClickSequence();
    const sequenced: ClickEvent[] = clicks.map((click) => ({ ...click, id: nextClickSequence() }));
    const packed = packClicks(sequenced);
    expect(packed.ids).toBeUndefined();
    expect(packed.node).toMatch(/^[0-9a-f]{12}$/);
    expect(packed.seq).toEqual([(first + 1) % 2 ** 26, 1, 1]);
    const ids = sequenced.map(clickId);
    expect(new Set(ids).size).toBe(3);
    expect(clickColumns(JSON.parse(JSON.stringify(packed)))).toEqual({ ...columns, ids });
    // The spool keeps them in full, and a batch of full and sequenced ids carries them all in full.
    expect(packClicks([sequenced[0], clicks[1]]).ids).toEqual([ids[0], 'b']);
  });

  it('step over the end of the 26-bit sequence', () => {
    const near = [2 ** 26 - 2, 2 ** 26 - 1, 0, 1, 5];
    const sequenced: ClickEvent[] = near.map((id, i) => ({ ...clicks[0], id, clickedAt: t0 + i }));
    const packed = packClicks(sequenced);
    expect(packed.seq).toEqual([2 ** 26 - 2, 1, 1, 1, 4]);
    expect(clickColumns(packed).ids).toEqual(near.map((seq, i) => clickIdOf(t0 + i, seq)));
  });

  it('read the version-2 layout of jobs enqueued before, IPs per click', () => {
    const v2: PackedClicksV2 = {
      v: 2,
      ids: ['a', 'b', 'c'],
      at: [t0, t0 + 877, t0 - 5],
      ...shared,
      ips: ['10.0.0.0', null, '10.0.0.0'],
    };
    expect(clickColumns(v2)).toEqual(columns);
    expect(clickColumns(clicks)).toEqual(columns);
  });
});

describe('click ids', () => {
  const newClickId = (at: number) => clickIdOf(at, nextClickSequence());

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
    const sequenceOf = (id: string) =>
      (parseInt(id.slice(15, 18), 16) << 14) | (parseInt(id.slice(19, 23), 16) & 0x3fff);
    const steps = ids
      .slice(1)
      .map((id, i) => (sequenceOf(id) - sequenceOf(ids[i]) + 2 ** 26) % 2 ** 26);
    expect(new Set(steps)).toEqual(new Set([1]));
    expect(new Set(ids.map((id) => id.slice(24))).size).toBe(1);
  });
});

describe('batchToken', () => {
  it('is the same for the same clicks in any order, and differs for other clicks', () => {
    expect(batchToken(['a', 'b', 'c'])).toBe(batchToken(['c', 'a', 'b']));
    expect(batchToken(['a', 'b'])).not.toBe(batchToken(['a', 'b', 'c']));
    expect(batchToken(['a', 'b'])).not.toBe(batchToken(['a', 'c']));
  });

  it('is the SHA-256 of the sorted ids, each followed by a comma (stable across versions: a job retried after an upgrade keeps its token)', () => {
    expect(batchToken(['b', 'a'])).toBe(
      `clicks:2:${createHash('sha256').update('a,b,').digest('hex')}`,
    );
    expect(batchToken(['x'])).toBe(
      `clicks:1:${createHash('sha256').update('x').update(',').digest('hex')}`,
    );
  });
});

describe('blockToken', () => {
  const batch = (...ids: string[]) => ({ rows: ids.length, token: batchToken(ids) });

  it("is a lone batch's own token (a block of one batch keeps the token it had before blocks were made of batch tokens)", () => {
    expect(blockToken([batch('b', 'a')])).toBe(batchToken(['a', 'b']));
  });

  it('is the same for the same batches in any order, and differs when a batch differs, is missing or is added', () => {
    const [a, b, c] = [batch('a1', 'a2'), batch('b1'), batch('c1', 'c2', 'c3')];
    expect(blockToken([a, b, c])).toBe(blockToken([c, a, b]));
    expect(blockToken([a, b])).not.toBe(blockToken([a, b, c]));
    expect(blockToken([a, b])).not.toBe(blockToken([a, batch('b2')]));
    expect(blockToken([a, b])).not.toBe(blockToken([a]));
  });

  it('is the SHA-256 of the sorted batch tokens, each followed by a comma, after the block’s click count', () => {
    const [a, b] = [batch('x'), batch('y', 'z')];
    const sorted = [a.token, b.token].sort();
    expect(blockToken([b, a])).toBe(
      `clicks:3:${createHash('sha256').update(`${sorted[0]},${sorted[1]},`).digest('hex')}`,
    );
  });
});
