import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import { ProjectEntity } from './project.entity';
import { ProjectsRepository } from './projects.repository';
import { VisitorStorageService } from './visitor-storage.service';

type Row = Pick<ProjectEntity, 'id' | 'ipStorage' | 'uaStorage'>;

/** The service on a repository of `rows` that counts its reads and may be cut off, and a bus without Redis. */
function setup(rows: Row[]) {
  const bus = new InvalidationBus({ redisPrefix: 'test' } as AppConfig);
  const reads: string[][] = [];
  const state = { down: false };
  const repository = {
    findVisitorStorage: (ids: readonly string[]) => {
      reads.push([...ids]);
      if (state.down) return Promise.reject(new Error('connect ECONNREFUSED'));
      return Promise.resolve(rows.filter((row) => ids.includes(row.id)).map((row) => ({ ...row })));
    },
  } as unknown as ProjectsRepository;
  const config = { clickIp: 'anonymised' } as AppConfig;
  const service = new VisitorStorageService(repository, bus, config);
  service.onModuleInit();
  return { service, bus, reads, state };
}

describe('VisitorStorageService', () => {
  const rowsOf = (): Row[] => [
    { id: 'p1', ipStorage: 'none', uaStorage: 'parsed' },
    { id: 'p2', ipStorage: null, uaStorage: 'full' },
  ];

  it("reads a batch's projects once, then from memory; unset and unknown projects follow CLICK_IP", async () => {
    const t = setup(rowsOf());
    const expected = [
      { ip: 'none', userAgent: 'parsed' },
      { ip: 'anonymised', userAgent: 'full' },
      { ip: 'anonymised', userAgent: 'full' },
    ];
    expect(await t.service.of(['p1', 'p2', 'gone'])).toEqual(expected);
    expect(await t.service.of(['p1', 'p2', 'gone'])).toEqual(expected);
    expect(t.reads).toEqual([['p1', 'p2', 'gone']]);
  });

  it("reads a project again once it changed (the bus's invalidation)", async () => {
    const rows = rowsOf();
    const t = setup(rows);
    await t.service.of(['p1', 'p2']);
    rows[0].ipStorage = 'full';
    await t.bus.changed('project', ['p1']);
    expect(await t.service.of(['p1', 'p2'])).toEqual([
      { ip: 'full', userAgent: 'parsed' },
      { ip: 'anonymised', userAgent: 'full' },
    ]);
    expect(t.reads).toEqual([['p1', 'p2'], ['p1']]);
  });

  it('serves the settings last read while PostgreSQL is out of reach, and refuses a project never read', async () => {
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    try {
      const t = setup(rowsOf());
      await t.service.of(['p1']);
      t.state.down = true;
      clock.mockReturnValue(now + 60_000);
      expect(await t.service.of(['p1'])).toEqual([{ ip: 'none', userAgent: 'parsed' }]);
      await expect(t.service.of(['p1', 'p2'])).rejects.toThrow('ECONNREFUSED');
      expect(t.reads).toEqual([['p1'], ['p1'], ['p1', 'p2']]);
    } finally {
      clock.mockRestore();
    }
  });
});
