import { SubscriptionsService } from '../../src/subscriptions/subscriptions.service';
import { TestApp, createTestApp } from '../support/app';
import { createProject } from '../factories/projects';
import { form } from '../factories/links';

/**
 * Every parameter error of stats/range.json and stats/totals.json (docs/api.md, "Statistics"):
 * status and exact message.
 */
describe('stats/range.json and stats/totals.json: parameter errors', () => {
  let t: TestApp;
  let key: string;
  let sibling: string;
  let foreign: string;
  beforeAll(async () => {
    t = await createTestApp();
    key = (await createProject(t)).api_key;
    sibling = (await createProject(t)).api_key;
    const other = await t.app.get(SubscriptionsService).createSubscription('other');
    const res = await t.http
      .post('/projects/new')
      .type('form')
      .send({
        subscription_key: other.subscriptionKey,
        application_key: other.applicationKey,
        json: JSON.stringify({ name: 'foreign' }),
      })
      .expect(200);
    foreign = (res.body as { response: { project: { api_key: string } } }).response.project.api_key;
  });
  afterAll(() => t.close());

  const FIELDS = [
    'application',
    'svc_id',
    'campaign',
    'channel',
    'domain',
    'original_url',
    'parent',
    'service',
    'service_postid',
    'service_userid',
    'sharer_id',
    'tag',
    'tool',
    'user_id',
    'username',
  ];
  const SHARED_AT = ['shared_at_hour_of_day', 'shared_at_day_of_week', 'shared_at_hour_of_week'];
  // docs/api.md, "Click dimensions": filters and groups of range and totals alike.
  const DIMENSIONS = ['country', 'region', 'city', 'device', 'browser', 'os', 'referrer_host'];
  const RANGE_GROUPS = [...FIELDS, ...SHARED_AT, ...DIMENSIONS].join(', ');
  // docs/api.md, "Statistics": group_by takes any filter of totals but domain, tag_2 … tag_5
  // included.
  const TOTALS_GROUPS = [
    ...FIELDS.filter((f) => f !== 'domain'),
    ...SHARED_AT,
    'tag_2',
    'tag_3',
    'tag_4',
    'tag_5',
    ...DIMENSIONS,
  ].join(', ');
  const goals = (n: number) =>
    Array.from({ length: n }, (_, i) => [`goal_${i + 1}_count`, `goal_${i + 1}_value`]).flat();
  const CONVERSION_SORTS = (n: number) => [
    'pageviews',
    'goal_total_count',
    'goal_total_value',
    ...goals(n),
  ];
  const BASE_SORTS = ['clicks', 'shares', 'clicks_per_share', 'alpha', 'shared_at'];
  const RANGE_SORTS = [...BASE_SORTS, ...CONVERSION_SORTS(5)].join(', ');
  const TOTALS_SORTS = [...BASE_SORTS, ...CONVERSION_SORTS(10)].join(', ');
  const DATE = 'must be a date (YYYY-MM-DD), a timestamp (ISO 8601) or UNIX seconds';
  const longUrl = (length: number) =>
    `https://example.com/${'u'.repeat(length - 'https://example.com/'.length)}`;

  type Case = [label: string, query: string, status: number, message: string];
  /** Errors both endpoints answer the same way; `query` is a raw query string or form body (without v and key unless given). */
  const common = (earliest: string | null): Case[] => [
    ['start_date not a date', 'start_date=soon', 400, `Invalid parameter start_date: ${DATE}`],
    ['end_date not a date', 'end_date=2026-13-45', 400, `Invalid parameter end_date: ${DATE}`],
    [
      'start_date given twice',
      'start_date=2026-11-01&start_date=2026-11-02',
      400,
      'Invalid parameter start_date: must be given once, as a single value',
    ],
    ...(earliest
      ? [
          [
            'start_date at the earliest day',
            `start_date=${earliest}`,
            400,
            `Invalid parameter start_date: must be after ${earliest}`,
          ] as Case,
        ]
      : []),
    [
      'end_date not after start_date',
      'start_date=2026-11-02&end_date=2026-11-02',
      400,
      'Invalid parameter end_date: must be after start_date',
    ],
    [
      'end_date before start_date',
      'start_date=2026-11-03&end_date=2026-11-02T05:00:00Z',
      400,
      'Invalid parameter end_date: must be after start_date',
    ],
    [
      'with_conversions not boolean',
      'with_conversions=yes',
      400,
      'Invalid parameter with_conversions: must be true or false',
    ],
    [
      'with_metadata not boolean',
      'with_metadata=on',
      400,
      'Invalid parameter with_metadata: must be true or false',
    ],
    [
      'with_zeros not boolean',
      'with_zeros=2',
      400,
      'Invalid parameter with_zeros: must be true or false',
    ],
    [
      'with_bots not boolean',
      'with_bots=maybe',
      400,
      'Invalid parameter with_bots: must be true or false',
    ],
    ...FIELDS.filter((f) => f !== 'tag').map((field): Case => [
      `${field} given twice`,
      `${field}=a&${field}=b`,
      400,
      `Invalid parameter ${field}: takes one value per request`,
    ]),
    [
      'tag[] with two values',
      'tag[]=a&tag[]=b',
      400,
      'Invalid parameter tag: takes one value per request',
    ],
    [
      'filter with an object value',
      'channel[a]=b',
      400,
      'Invalid parameter channel: takes one value per request',
    ],
    [
      'filter over 255 characters',
      `tag=${'x'.repeat(256)}`,
      400,
      'Invalid parameter tag: must be at most 255 characters',
    ],
    // Each filter is as long as its field can be: original_url as link creation takes url.
    [
      'original_url over 4096 characters',
      `original_url=${encodeURIComponent(longUrl(4097))}`,
      400,
      'Invalid parameter original_url: must be at most 4096 characters',
    ],
    [
      'svc_id longer than the longest domain and path make it',
      `svc_id=${'s'.repeat(526)}`,
      400,
      'Invalid parameter svc_id: must be at most 525 characters',
    ],
    [
      'sharer_id longer than a UUID',
      `sharer_id=${'0'.repeat(37)}`,
      400,
      'Invalid parameter sharer_id: must be at most 36 characters',
    ],
    [
      'hour of day 24',
      'shared_at_hour_of_day=24',
      400,
      'Invalid parameter shared_at_hour_of_day: must be an integer from 0 to 23',
    ],
    [
      'hour of day negative',
      'shared_at_hour_of_day=-1',
      400,
      'Invalid parameter shared_at_hour_of_day: must be an integer from 0 to 23',
    ],
    [
      'hour of day not an integer',
      'shared_at_hour_of_day=1.5',
      400,
      'Invalid parameter shared_at_hour_of_day: must be an integer from 0 to 23',
    ],
    [
      'day of week 7',
      'shared_at_day_of_week=7',
      400,
      'Invalid parameter shared_at_day_of_week: must be an integer from 0 to 6',
    ],
    [
      'hour of week 168',
      'shared_at_hour_of_week=168',
      400,
      'Invalid parameter shared_at_hour_of_week: must be an integer from 0 to 167',
    ],
    [
      'hour of week not a number',
      'shared_at_hour_of_week=monday',
      400,
      'Invalid parameter shared_at_hour_of_week: must be an integer from 0 to 167',
    ],
    [
      'group_by given twice',
      'group_by=tag&group_by=channel',
      400,
      'Invalid parameter group_by: must be given once, as a single value',
    ],
    ['pivot without group_by', 'pivot=tag', 400, 'Invalid parameter pivot: needs group_by'],
    [
      'pivot equal to group_by',
      'group_by=tag&pivot=tag',
      400,
      'Invalid parameter pivot: cannot be the group_by field',
    ],
    [
      'pivot on a filtered field',
      'group_by=tag&pivot=channel&channel=email',
      400,
      'Invalid parameter pivot: cannot be a filtered field',
    ],
    [
      'pivot on a filtered shared_at field',
      'group_by=tag&pivot=shared_at_hour_of_day&shared_at_hour_of_day=3',
      400,
      'Invalid parameter pivot: cannot be a filtered field',
    ],
    [
      'sort_order unknown',
      'group_by=tag&sort_order=up',
      400,
      'Invalid parameter sort_order: must be asc or desc',
    ],
    [
      'pivot_sort_order unknown',
      'group_by=tag&pivot=channel&pivot_sort_order=down',
      400,
      'Invalid parameter pivot_sort_order: must be asc or desc',
    ],
    [
      'per_page 0',
      'per_page=0',
      400,
      'Invalid parameter per_page: must be an integer from 1 to 1000',
    ],
    [
      'per_page 1001',
      'per_page=1001',
      400,
      'Invalid parameter per_page: must be an integer from 1 to 1000',
    ],
    [
      'per_page not a number',
      'per_page=ten',
      400,
      'Invalid parameter per_page: must be an integer from 1 to 1000',
    ],
    ['page 0', 'page=0', 400, 'Invalid parameter page: must be an integer from 1 to 1000000'],
    [
      'page negative',
      'page=-2',
      400,
      'Invalid parameter page: must be an integer from 1 to 1000000',
    ],
    [
      'offset negative',
      'offset=-1',
      400,
      'Invalid parameter offset: must be an integer from 0 to 100000000',
    ],
    [
      'offset not a number',
      'offset=last',
      400,
      'Invalid parameter offset: must be an integer from 0 to 100000000',
    ],
    [
      'callback not an identifier',
      'callback=alert(1)',
      400,
      'Invalid parameter callback: must be a JavaScript identifier ([A-Za-z_$][\\w$.]*)',
    ],
  ];

  const rangeCases: Case[] = [
    ...common(null),
    [
      'group_by unknown',
      'group_by=colour',
      400,
      `Invalid parameter group_by: must be one of ${RANGE_GROUPS}`,
    ],
    [
      'group_by project on range',
      'group_by=project',
      400,
      `Invalid parameter group_by: must be one of ${RANGE_GROUPS}`,
    ],
    [
      'pivot unknown',
      'group_by=tag&pivot=colour',
      400,
      `Invalid parameter pivot: must be one of ${RANGE_GROUPS}`,
    ],
    [
      'sort_type unknown',
      'group_by=tag&sort_type=size',
      400,
      `Invalid parameter sort_type: must be one of ${RANGE_SORTS}`,
    ],
    [
      'goal_6 sort on range',
      'group_by=tag&with_conversions=true&sort_type=goal_6_count',
      400,
      `Invalid parameter sort_type: must be one of ${RANGE_SORTS}`,
    ],
    [
      'pivot_sort_type unknown',
      'group_by=tag&pivot=channel&pivot_sort_type=size',
      400,
      `Invalid parameter pivot_sort_type: must be one of ${RANGE_SORTS}`,
    ],
    ...CONVERSION_SORTS(5).flatMap((sort): Case[] => [
      [
        `sort_type=${sort} without with_conversions`,
        `group_by=tag&sort_type=${sort}`,
        400,
        `Invalid parameter sort_type: ${sort} needs with_conversions=true`,
      ],
      [
        `pivot_sort_type=${sort} with with_conversions=false`,
        `group_by=tag&pivot=channel&with_conversions=false&pivot_sort_type=${sort}`,
        400,
        `Invalid parameter pivot_sort_type: ${sort} needs with_conversions=true`,
      ],
    ]),
  ];

  const totalsCases: Case[] = [
    ...common('2011-09-01'),
    [
      'start_date before 2011-09-01',
      'start_date=2011-06-01',
      400,
      'Invalid parameter start_date: must be after 2011-09-01',
    ],
    [
      'group_by unknown',
      'group_by=colour',
      400,
      `Invalid parameter group_by: must be one of ${TOTALS_GROUPS}`,
    ],
    [
      'group_by domain',
      'group_by=domain',
      400,
      `Invalid parameter group_by: must be one of ${TOTALS_GROUPS}`,
    ],
    [
      'group_by project with a single key',
      'group_by=project',
      400,
      `Invalid parameter group_by: must be one of ${TOTALS_GROUPS}`,
    ],
    [
      'pivot domain',
      'group_by=tag&pivot=domain',
      400,
      `Invalid parameter pivot: must be one of ${TOTALS_GROUPS}`,
    ],
    [
      'sort_type unknown',
      'group_by=tag&sort_type=size',
      400,
      `Invalid parameter sort_type: must be one of ${TOTALS_SORTS}`,
    ],
    [
      'pivot_sort_type unknown',
      'group_by=tag&pivot=channel&pivot_sort_type=goal_11_count',
      400,
      `Invalid parameter pivot_sort_type: must be one of ${TOTALS_SORTS}`,
    ],
    ...CONVERSION_SORTS(10).flatMap((sort): Case[] => [
      [
        `sort_type=${sort} without with_conversions`,
        `group_by=tag&sort_type=${sort}`,
        400,
        `Invalid parameter sort_type: ${sort} needs with_conversions=true`,
      ],
      [
        `pivot_sort_type=${sort} without with_conversions`,
        `group_by=tag&pivot=channel&pivot_sort_type=${sort}`,
        400,
        `Invalid parameter pivot_sort_type: ${sort} needs with_conversions=true`,
      ],
    ]),
    ...['tag_2', 'tag_3', 'tag_4', 'tag_5'].flatMap((tag): Case[] => [
      [
        `${tag}[] with two values`,
        `${tag}[]=a&${tag}[]=b`,
        400,
        `Invalid parameter ${tag}: takes one value per request`,
      ],
      [
        `${tag} given twice`,
        `${tag}=a&${tag}=b`,
        400,
        `Invalid parameter ${tag}: takes one value per request`,
      ],
      [
        `${tag} over 255 characters`,
        `${tag}=${'t'.repeat(256)}`,
        400,
        `Invalid parameter ${tag}: must be at most 255 characters`,
      ],
    ]),
  ];

  for (const [endpoint, cases] of [
    ['range', rangeCases],
    ['totals', totalsCases],
  ] as const) {
    describe(`stats/${endpoint}.json`, () => {
      it.each(cases)('GET: %s', async (_, query, status, message) => {
        const res = await t.http
          .get(`/stats/${endpoint}.json?${query}`)
          .query({ v: '3', key })
          .expect(status);
        expect(res.body).toEqual({ error: status, error_message: message });
      });
      it.each(cases)('POST: %s', async (_, query, status, message) => {
        const res = await t.http
          .post(`/stats/${endpoint}.json`)
          .type('form')
          .send(
            `${form([
              ['v', '3'],
              ['key', key],
            ])}&${query}`,
          )
          .expect(status);
        expect(res.body).toEqual({ error: status, error_message: message });
      });
      it('the boundaries just inside the limits are accepted', async () => {
        // Range has no earliest start (docs/api.md, "Statistics", bounds intervals and totals
        // only).
        const earliest = endpoint === 'range' ? '1971-01-01T00:00:00Z' : '2011-09-01T01:00:00Z';
        const ok = [
          `start_date=${earliest}`,
          `original_url=${encodeURIComponent(longUrl(4096))}&svc_id=${'s'.repeat(525)}&parent=${'p'.repeat(525)}`,
          `domain=${'d'.repeat(324)}&channel=${'c'.repeat(255)}&sharer_id=${'0'.repeat(36)}`,
          'shared_at_hour_of_day=23&shared_at_day_of_week=6&shared_at_hour_of_week=167',
          'shared_at_hour_of_day=0&shared_at_day_of_week=0&shared_at_hour_of_week=0',
          'per_page=1000&page=1000000',
          'per_page=1&offset=0',
          `tag=${'x'.repeat(255)}`,
          'with_zeros=1&with_metadata=0&with_conversions=TRUE&with_bots=False',
          'group_by=tag&sort_order=ASC&pivot=channel&pivot_sort_order=DESC',
        ];
        for (const query of ok) {
          await t.http.get(`/stats/${endpoint}.json?${query}`).query({ v: '3', key }).expect(200);
        }
      });
    });
  }

  describe('v and key', () => {
    it.each(['range', 'totals'])(
      '%s: v missing or not 3, key missing or unknown',
      async (endpoint) => {
        const cases: [Record<string, string>, number, string][] = [
          [{ key }, 400, 'Missing required parameter: v'],
          [{ v: '2', key }, 400, 'Invalid parameter v: must be 3'],
          [{ v: '3' }, 400, 'Missing required parameter: key'],
          [{ v: '3', key: 'nope' }, 403, 'Invalid API key specified'],
          // The key is checked before any other parameter.
          [{ v: '3', key: 'nope', group_by: 'colour' }, 403, 'Invalid API key specified'],
        ];
        for (const [query, status, message] of cases) {
          const res = await t.http.get(`/stats/${endpoint}.json`).query(query).expect(status);
          expect(res.body).toEqual({ error: status, error_message: message });
          const post = await t.http
            .post(`/stats/${endpoint}.json`)
            .type('form')
            .send(query)
            .expect(status);
          expect(post.body).toEqual({ error: status, error_message: message });
        }
      },
    );

    it('range takes one key, not an array', async () => {
      const res = await t.http
        .get(
          `/stats/range.json?${form([
            ['key[]', key],
            ['key[]', sibling],
          ])}`,
        )
        .query({ v: '3' })
        .expect(400);
      expect(res.body).toEqual({
        error: 400,
        error_message: 'Invalid parameter key: must be given once, as a single value',
      });
    });

    it('totals: key[] of known projects of any subscriptions, at most 100', async () => {
      const get = (pairs: [string, string][]) =>
        t.http.get(`/stats/totals.json?${form(pairs)}`).query({ v: '3' });
      // Each key is a credential of its own project, whichever subscription owns it.
      for (const pairs of [
        [
          ['key[]', key],
          ['key[]', foreign],
        ],
        [
          ['key[]', foreign],
          ['key[]', sibling],
        ],
        Array.from({ length: 100 }, (_, i): [string, string] => [
          'key[]',
          [key, sibling, foreign][i % 3],
        ]),
      ] as [string, string][][]) {
        const res = await get(pairs).query({ group_by: 'project' }).expect(200);
        expect([res.body.total_results, res.body.totals]).toEqual([
          0,
          { clicks: 0, shares: 0, clicks_per_share: 0 },
        ]);
      }
      const cases: [[string, string][], number, string][] = [
        [
          [
            ['key[]', key],
            ['key[]', 'nope'],
          ],
          403,
          'Invalid API key specified',
        ],
        [
          [
            ['key[]', foreign],
            ['key[]', 'nope'],
          ],
          403,
          'Invalid API key specified',
        ],
        [[['key[]', '']], 403, 'Invalid API key specified'],
        [
          Array.from({ length: 101 }, (): [string, string] => ['key[]', key]),
          400,
          'Invalid parameter key: takes 1 to 100 project keys',
        ],
        [[['key[a]', key]], 400, 'Invalid parameter key: must be given once, as a single value'],
      ];
      for (const [pairs, status, message] of cases) {
        const res = await get(pairs).expect(status);
        expect(res.body).toEqual({ error: status, error_message: message });
      }
    });

    it('totals: key[] with more than 20 keys (an indexed object to the query parser) is one array', async () => {
      const pairs = Array.from({ length: 30 }, (_, i): [string, string] => [
        'key[]',
        i % 2 === 0 ? key : sibling,
      ]);
      const res = await t.http
        .get(`/stats/totals.json?${form(pairs)}`)
        .query({ v: '3', group_by: 'project' })
        .expect(200);
      expect(res.body.total_results).toBe(0);
      const bad = [...pairs, ['key[]', 'nope'] as [string, string]];
      const refused = await t.http
        .get(`/stats/totals.json?${form(bad)}`)
        .query({ v: '3' })
        .expect(403);
      expect(refused.body).toEqual({ error: 403, error_message: 'Invalid API key specified' });
    });
  });

  it('errors with a callback are JSON-P', async () => {
    const res = await t.http
      .get('/stats/totals.json')
      .query({ v: '3', key, group_by: 'domain', callback: 'cb' })
      .expect(400);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.text).toBe(
      `cb(${JSON.stringify({ error: 400, error_message: `Invalid parameter group_by: must be one of ${TOTALS_GROUPS}` })});`,
    );
    const forbidden = await t.http
      .get('/stats/range.json')
      .query({ v: '3', key: 'nope', callback: 'cb' })
      .expect(403);
    expect(forbidden.text).toBe('cb({"error":403,"error_message":"Invalid API key specified"});');
  });

  it('stats have no txt form', async () => {
    const res = await t.http.get('/stats/range.txt').query({ v: '3', key }).expect(404);
    expect(res.body).toEqual({ error: 404, error_message: 'Cannot GET /stats/range.txt' });
  });
});
