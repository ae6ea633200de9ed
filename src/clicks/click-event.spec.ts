import { ClickEvent, packClicks, unpackClicks } from './click-event';

describe('click batches', () => {
  const clicks: ClickEvent[] = [
    { id: 'a', linkId: '1', projectId: 'p1', clickedAt: '2026-11-23T10:00:00.123Z', referrer: null, userAgent: 'UA', ip: '10.0.0.0', isBot: false },
    { id: 'b', linkId: '2', projectId: 'p1', clickedAt: '2026-11-23T10:00:01.000Z', referrer: 'https://r.example/', userAgent: 'UA', ip: null, isBot: true },
    { id: 'c', linkId: '1', projectId: 'p2', clickedAt: '2026-11-23T10:00:02.000Z', referrer: 'https://r.example/', userAgent: null, ip: '::', isBot: false },
  ];

  it('pack and unpack losslessly, listing repeated strings once', () => {
    const packed = packClicks(clicks);
    expect(packed.agents).toEqual(['UA']);
    expect(packed.referrers).toEqual(['https://r.example/']);
    expect(packed.projects).toEqual(['p1', 'p2']);
    expect(unpackClicks(JSON.parse(JSON.stringify(packed)))).toEqual(clicks);
  });

  it('reads batches of the earlier format', () => {
    expect(unpackClicks({ clicks })).toEqual(clicks);
  });
});
