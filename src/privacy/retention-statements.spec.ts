import { flat } from '../../test/factories/stats-query';
import {
  deleteRawStatement,
  firstEventHourQuery,
  horizonStatement,
  lateEventsQuery,
  rollupStatement,
  rollupToken,
  sweepDeleteStatement,
  sweepIdsStatement,
  sweepRollupStatement,
} from './retention-statements';
import { nextMonth, retentionCutoff } from './retention.service';

const P = '3ce75893-4924-4623-8d90-53408aea73f5';
const chunk = {
  projectId: P,
  from: new Date('2026-07-01T00:00:00Z'),
  to: new Date('2026-08-01T00:00:00Z'),
};

describe('retention statements', () => {
  it('sums a chunk of clicks per hour, stamp, dimensions and is_bot into clicks_retired, under its token', () => {
    const { sql, params } = rollupStatement('svc', 'clicks', chunk);
    const text = flat(sql);
    expect(text).toMatch(
      /^INSERT INTO svc\.clicks_retired \(project_id, link_id, hour, link_version, domain, .*, chain_stamped, ancestors, country, region, city, device, browser, os, referrer_host, is_bot, n\)/,
    );
    expect(text).toContain(
      `SETTINGS insert_deduplication_token = 'retention:clicks:${P}:1782864000000:1785542400000'`,
    );
    expect(text).toContain(
      'SELECT project_id, link_id, toStartOfHour(clicked_at) AS hour, link_version, domain,',
    );
    expect(text).toContain('referrer_host, is_bot, count() AS n FROM svc.clicks');
    expect(text).toContain(
      "WHERE project_id = {project:UUID} AND clicked_at >= {from:DateTime64(3, 'UTC')} AND clicked_at < {to:DateTime64(3, 'UTC')}",
    );
    expect(text).toMatch(/GROUP BY project_id, link_id, hour, .*, referrer_host, is_bot$/);
    expect(text).not.toMatch(/\b(ip|user_agent|referrer|click_id)\b/);
    expect(params).toEqual({
      project: P,
      from: '2026-07-01 00:00:00.000',
      to: '2026-08-01 00:00:00.000',
    });
  });

  it('conversions: per type, with n and the summed value', () => {
    const text = flat(rollupStatement('svc', 'conversions', chunk).sql);
    expect(text).toContain('referrer_host, type, n, value)');
    expect(text).toContain('type, count() AS n, sum(value) AS value FROM svc.conversions');
    expect(text).toContain(`'retention:conversions:${P}:`);
  });

  it('the same chunk always has the same token; a bad project id is refused', () => {
    expect(rollupToken('clicks', { ...chunk })).toBe(rollupToken('clicks', chunk));
    expect(rollupToken('clicks', chunk)).not.toBe(rollupToken('conversions', chunk));
    expect(() => rollupToken('clicks', { ...chunk, projectId: "x'; DROP" })).toThrow();
    expect(() => deleteRawStatement('svc', 'clicks', { ...chunk, projectId: "x'" })).toThrow();
  });

  it('deletes the chunk by a mutation waited for, its values written in it', () => {
    expect(flat(deleteRawStatement('svc', 'conversions', chunk).sql)).toBe(
      `ALTER TABLE svc.conversions DELETE WHERE project_id = toUUID('${P}')` +
        " AND converted_at >= fromUnixTimestamp64Milli(1782864000000, 'UTC')" +
        " AND converted_at < fromUnixTimestamp64Milli(1785542400000, 'UTC') SETTINGS mutations_sync = 2",
    );
  });

  it('finds the hour of the first event of a chunk', () => {
    expect(flat(firstEventHourQuery('svc', 'clicks', chunk).sql)).toBe(
      "SELECT toStartOfHour(clicked_at) AS hour FROM svc.clicks WHERE project_id = {project:UUID} AND clicked_at >= {from:DateTime64(3, 'UTC')} AND clicked_at < {to:DateTime64(3, 'UTC')} GROUP BY hour ORDER BY hour LIMIT 1",
    );
  });

  it('the cutoff is the start of the hour `days` days ago; chunks end at a month', () => {
    expect(retentionCutoff(30, new Date('2026-11-29T06:07:48Z')).toISOString()).toBe(
      '2026-10-30T06:00:00.000Z',
    );
    expect(nextMonth(new Date('2026-12-31T23:00:00Z')).toISOString()).toBe(
      '2027-01-01T00:00:00.000Z',
    );
  });

  it("moves the project's horizon to the chunk's end, a version of its time", () => {
    const { sql, params } = horizonStatement('svc', P, chunk.to);
    expect(flat(sql)).toBe(
      'INSERT INTO svc.retired_horizons (project_id, retired_until, version)' +
        " SELECT {project:UUID}, {until:DateTime64(3, 'UTC')}, {version:UInt64}",
    );
    expect(params).toEqual({
      project: P,
      until: '2026-08-01 00:00:00.000',
      version: 1785542400000,
    });
  });

  describe('sweeps of late events', () => {
    const T = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const sweep = { projectId: P, token: T, before: chunk.to };

    it('finds late events before retired_until, saves their ids under the token', () => {
      expect(flat(lateEventsQuery('svc', P, chunk.to).sql)).toBe(
        "SELECT 1 AS late FROM svc.clicks WHERE project_id = {project:UUID} AND clicked_at < {before:DateTime64(3, 'UTC')} LIMIT 1" +
          " UNION ALL SELECT 1 AS late FROM svc.conversions WHERE project_id = {project:UUID} AND converted_at < {before:DateTime64(3, 'UTC')} LIMIT 1",
      );
      const ids = sweepIdsStatement('svc', sweep, 1000);
      expect(flat(ids.sql)).toBe(
        'INSERT INTO svc.retired_sweeps (token, kind, id)' +
          ` SETTINGS insert_deduplication_token = 'retention:sweep:${T}:ids'` +
          " SELECT {token:String}, 'clicks', click_id FROM svc.clicks WHERE project_id = {project:UUID} AND clicked_at < {before:DateTime64(3, 'UTC')} LIMIT 1000" +
          " UNION ALL SELECT {token:String}, 'conversions', conversion_id FROM svc.conversions WHERE project_id = {project:UUID} AND converted_at < {before:DateTime64(3, 'UTC')} LIMIT 1000",
      );
      expect(ids.params).toEqual({ token: T, project: P, before: '2026-08-01 00:00:00.000' });
    });

    it('rolls up and deletes exactly the saved ids, under tokens of the sweep', () => {
      const saved = (kind: string) =>
        `IN (SELECT id FROM svc.retired_sweeps WHERE token = '${T}' AND kind = '${kind}')`;
      const rollup = flat(sweepRollupStatement('svc', 'clicks', sweep).sql);
      expect(rollup).toContain(
        `SETTINGS insert_deduplication_token = 'retention:sweep:${T}:clicks'`,
      );
      expect(rollup).toContain(
        `WHERE project_id = {project:UUID} AND click_id ${saved('clicks')} GROUP BY`,
      );
      expect(flat(sweepDeleteStatement('svc', 'conversions', sweep).sql)).toBe(
        `ALTER TABLE svc.conversions DELETE WHERE project_id = toUUID('${P}') AND conversion_id ${saved('conversions')}` +
          ' SETTINGS mutations_sync = 2',
      );
      expect(() => sweepDeleteStatement('svc', 'clicks', { ...sweep, token: "x'" })).toThrow();
    });
  });
});
