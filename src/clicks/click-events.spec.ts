import { NO_DIMENSIONS } from '../../test/factories/click-dimensions';
import type { BatchDescription, ClickDimensions } from '../enrichment/click-enricher';
import { EventPublisher } from '../events/event-publisher';
import type { RequestEvents } from '../events/event-outbox';
import type { EventType, OutgoingEvent } from '../events/project-event';
import type { LinkLookupsService } from '../links/link-lookups.service';
import { ClickEvent, clickColumns } from './click-event';
import { ClickEvents } from './click-events';

/** The events layer: which projects some sink listens to, and what was published. */
class FakePublisher extends EventPublisher {
  readonly published: OutgoingEvent[][] = [];
  readonly asked: [string, EventType][] = [];

  constructor(private readonly listened: string[]) {
    super();
  }

  publish(events: OutgoingEvent[]): Promise<void> {
    this.published.push(events);
    return Promise.resolve();
  }

  listens(projectId: string, type: EventType): Promise<boolean> {
    this.asked.push([projectId, type]);
    return Promise.resolve(this.listened.includes(projectId));
  }

  open(): Promise<RequestEvents> {
    throw new Error('clicks open no request events');
  }
}

/** Links' svc_ids by id; counts the look-ups. */
class FakeLookups {
  readonly looked: string[][] = [];
  constructor(private readonly known: Record<string, string>) {}

  svcIds(ids: string[]): Promise<Map<string, string>> {
    this.looked.push(ids);
    return Promise.resolve(
      new Map(ids.filter((id) => id in this.known).map((id) => [id, this.known[id]])),
    );
  }
}

const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const ID = (n: number) => `0194${n.toString(16).padStart(4, '0')}-0000-7000-8000-000000000000`;

function click(n: number, projectId: string, linkId: string, more: Partial<ClickEvent> = {}) {
  return {
    id: ID(n),
    linkId,
    projectId,
    clickedAt: AT + n,
    referrer: null,
    userAgent: null,
    ip: null,
    isBot: false,
    ...more,
  } satisfies ClickEvent;
}

const eventId = (n: number) => `evt_${ID(n).replace(/-/g, '')}`;

/** The link.clicked of click n of link 11 (abc1) in project p1, as the sinks get it. */
function linkClicked(n: number, dimensions: ClickDimensions) {
  const at = new Date(AT + n).toISOString();
  return {
    projectId: 'p1',
    linkId: '11',
    event: {
      id: eventId(n),
      type: 'link.clicked',
      created_at: at,
      data: { svc_id: 'abc1', click: { id: ID(n), clicked_at: at, ...dimensions } },
    },
  };
}

/** The batch's dimensions: a place for one address, an agent, a referring host. */
function description(columns: ReturnType<typeof clickColumns>): BatchDescription {
  return {
    places: columns.ips.map((ip) =>
      ip === '203.0.113.7' ? { country: 'FR', region: 'Île-de-France', city: 'Paris' } : null,
    ),
    agents: columns.agents.map(() => ({ device: 'mobile', browser: 'Safari', os: 'iOS' })),
    referrers: columns.referrers.map((referrer) => new URL(referrer).host),
  };
}

function setUp(listened: string[], svcIds: Record<string, string>) {
  const publisher = new FakePublisher(listened);
  const lookups = new FakeLookups(svcIds);
  const events = new ClickEvents(lookups as unknown as LinkLookupsService, publisher);
  const emit = (clicks: ClickEvent[]) => {
    const columns = clickColumns(clicks);
    return events.emit(columns, () => description(columns));
  };
  return { publisher, lookups, emit };
}

describe('ClickEvents', () => {
  it('makes one link.clicked per human click: its id, time, dimensions and svc_id, never its address or agent', async () => {
    const { publisher, emit } = setUp(['p1'], { '11': 'abc1' });
    await emit([
      click(1, 'p1', '11', {
        ip: '203.0.113.7',
        userAgent: 'Mozilla/5.0 (iPhone)',
        referrer: 'https://news.example/item?id=1',
      }),
      click(2, 'p1', '11'),
    ]);
    expect(publisher.published).toEqual([
      [
        linkClicked(1, {
          country: 'FR',
          region: 'Île-de-France',
          city: 'Paris',
          device: 'mobile',
          browser: 'Safari',
          os: 'iOS',
          referrer_host: 'news.example',
        }),
        linkClicked(2, NO_DIMENSIONS),
      ],
    ]);
  });

  it('leaves out bots, projects no sink listens to, and links deleted since', async () => {
    const { publisher, lookups, emit } = setUp(['p1'], { '11': 'abc1' });
    await emit([
      click(1, 'p1', '11', { isBot: true }),
      click(2, 'p2', '21'),
      click(3, 'p1', '12'),
      click(4, 'p1', '11'),
    ]);
    expect(publisher.asked).toEqual([
      ['p1', 'link.clicked'],
      ['p2', 'link.clicked'],
    ]);
    expect(lookups.looked).toEqual([['12', '11']]);
    expect(publisher.published.map((events) => events.map((e) => e.event.id))).toEqual([
      [eventId(4)],
    ]);
  });

  it('builds nothing and looks nothing up when no sink listens to the batch’s projects', async () => {
    const { publisher, lookups, emit } = setUp([], { '11': 'abc1' });
    await emit([click(1, 'p1', '11')]);
    expect(publisher.published).toEqual([]);
    expect(lookups.looked).toEqual([]);
  });

  it('makes the same events from the same batch twice, and looks a link’s svc_id up once', async () => {
    const { publisher, lookups, emit } = setUp(['p1'], { '11': 'abc1' });
    const batch = [click(1, 'p1', '11')];
    await emit(batch);
    await emit(batch);
    expect(publisher.published[1]).toEqual(publisher.published[0]);
    expect(lookups.looked).toEqual([['11']]);
  });
});
