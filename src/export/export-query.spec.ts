import { ExportQuery } from './export-params';
import { ExportContext, exportStatement, ipExpression } from './export-query';
import { exportFilename } from './export.service';

const context: ExportContext = {
  db: 'svc',
  projectId: '00000000-0000-0000-0000-000000000001',
  toolKeys: ['pub-bar'],
  visitor: { ip: 'full', userAgent: 'full' },
};

function query(overrides: Partial<ExportQuery> = {}): ExportQuery {
  return {
    kind: 'clicks',
    format: 'csv',
    start: null,
    end: null,
    filters: {},
    withBots: false,
    ...overrides,
  };
}

const squash = (sql: string) => sql.replace(/\s+/g, ' ');

describe('exportStatement', () => {
  it('reads the clicks in their sorting key order and merges them with their links (LEFT without a link filter)', () => {
    const { sql, params } = exportStatement(query(), context);
    const text = squash(sql);
    expect(text).toContain(
      'FROM svc.clicks WHERE project_id = {p0:UUID} AND is_bot = 0 ORDER BY project_id, link_id, clicked_at',
    );
    expect(text).toContain(') AS e LEFT JOIN (');
    expect(text).toContain(
      'FROM svc.links FINAL WHERE project_id = {p0:UUID} ORDER BY project_id, link_id',
    );
    expect(text).toContain("join_algorithm = 'full_sorting_merge'");
    expect(text).toMatch(
      /^SELECT e\.clicked_at AS clicked_at, e\.click_id AS click_id, l\.svc_id AS svc_id,/,
    );
    expect(text).toContain('e.ip AS ip, e.is_bot AS is_bot');
    expect(params).toEqual({ p0: context.projectId });
  });

  it('binds the period and the filters: link filters keep the events of matching links (INNER)', () => {
    const { sql, params } = exportStatement(
      query({
        kind: 'conversions',
        start: new Date('2026-11-01T00:00:00Z'),
        end: new Date('2026-11-02T00:00:00Z'),
        filters: { tool: 'Sharebar', country: 'GB' },
        withBots: true,
      }),
      context,
    );
    const text = squash(sql);
    expect(text).toContain(
      "FROM svc.conversions WHERE project_id = {p0:UUID} AND converted_at >= {p3:DateTime64(3, 'UTC')} AND converted_at < {p4:DateTime64(3, 'UTC')} AND country = {p5:String} ORDER BY project_id, link_id, converted_at",
    );
    expect(text).toContain(') AS e INNER JOIN (');
    expect(text).toContain('AND (tool = {p1:String} OR tool IN {p2:Array(String)})');
    expect(text).not.toContain('is_bot');
    expect(params).toEqual({
      p0: context.projectId,
      p1: 'Sharebar',
      p2: ['pub-bar'],
      p3: '2026-11-01 00:00:00.000',
      p4: '2026-11-02 00:00:00.000',
      p5: 'GB',
    });
  });

  it('writes the address and user agent as the project keeps them', () => {
    const parsed = exportStatement(query(), {
      ...context,
      visitor: { ip: 'none', userAgent: 'parsed' },
    }).sql;
    expect(squash(parsed)).toContain(
      'CAST(NULL AS Nullable(String)) AS user_agent, CAST(NULL AS Nullable(String)) AS ip',
    );
    const anonymised = exportStatement(query(), {
      ...context,
      visitor: { ip: 'anonymised', userAgent: 'full' },
    }).sql;
    expect(squash(anonymised)).toContain(`${squash(ipExpression('e.ip', 'anonymised'))} AS ip`);
  });

  it('reads the links shared in the period, with their imported clicks when the export has a table of them', () => {
    const links = query({
      kind: 'links',
      start: new Date('2026-11-01T00:00:00Z'),
      filters: { tag_2: 'x' },
    });
    const without = squash(exportStatement(links, context).sql);
    expect(without).toContain(
      "FROM svc.links FINAL WHERE project_id = {p0:UUID} AND shared_at >= {p1:DateTime64(3, 'UTC')} AND has(tag_2, {p2:String}) ORDER BY project_id, link_id",
    );
    expect(without).toContain('CAST(NULL AS Nullable(UInt64)) AS imported_clicks');
    const withTable = squash(
      exportStatement(links, { ...context, importedTable: 'export_imported_ab' }).sql,
    );
    expect(withTable).toContain(
      'LEFT JOIN ( SELECT project_id, link_id, imported_clicks FROM svc.export_imported_ab ORDER BY project_id, link_id ) AS i',
    );
  });
});

describe('ipExpression', () => {
  it('keeps the column in full, nothing for none', () => {
    expect(ipExpression('ip', 'full')).toBe('ip');
    expect(ipExpression('ip', 'none')).toBe('CAST(NULL AS Nullable(String))');
  });
});

describe('exportFilename', () => {
  it('names the kind, the period given and the format', () => {
    const base = { kind: 'clicks', format: 'csv', start: null, end: null } as const;
    expect(exportFilename(base)).toBe('svc-clicks.csv');
    expect(
      exportFilename({
        ...base,
        kind: 'links',
        format: 'parquet',
        start: new Date('2026-11-01T00:00:00Z'),
        end: new Date('2026-11-23T00:00:00Z'),
      }),
    ).toBe('svc-links-20261101-20261123.parquet');
    expect(exportFilename({ ...base, end: new Date('2026-11-23T05:00:00Z') })).toBe(
      'svc-clicks-all-20261123.csv',
    );
    expect(exportFilename({ ...base, start: new Date('2026-11-01T00:00:00Z') })).toBe(
      'svc-clicks-20261101-now.csv',
    );
  });
});
