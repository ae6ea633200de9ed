import { AppError } from '../common/app-error';
import { readExportFile, readExportQuery } from './export-params';

function refusal(run: () => unknown): [number, string] {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return [error.status, error.message];
    throw error;
  }
  throw new Error('not refused');
}

describe('readExportFile', () => {
  it('reads the kind and the format of the path', () => {
    expect(readExportFile('clicks.csv')).toEqual({ kind: 'clicks', format: 'csv' });
    expect(readExportFile('conversions.ndjson')).toEqual({ kind: 'conversions', format: 'ndjson' });
    expect(readExportFile('links.parquet')).toEqual({ kind: 'links', format: 'parquet' });
  });

  it('answers 404 for an unknown kind and 400 naming format for an unknown format', () => {
    expect(refusal(() => readExportFile('visits.csv'))).toEqual([
      404,
      'No export "visits": the exports are clicks, conversions and links',
    ]);
    expect(refusal(() => readExportFile('clicks'))).toEqual([
      400,
      'Invalid parameter format: "" is not supported; use csv, ndjson or parquet',
    ]);
    expect(refusal(() => readExportFile('clicks.CSV'))).toEqual([
      400,
      'Invalid parameter format: "CSV" is not supported; use csv, ndjson or parquet',
    ]);
  });
});

describe('readExportQuery', () => {
  const clicks = { kind: 'clicks', format: 'csv' } as const;

  it('reads the period as statistics do (rounded to the hour) and the filters, normalised', () => {
    expect(
      readExportQuery(
        {
          start_date: '2026-11-01T10:30:00Z',
          end_date: '2026-11-02T10:30:00Z',
          channel: 'twitter',
          country: 'gb',
          domain: 'Svc.Test',
          tag_2: 'a',
          with_bots: '1',
          group_by: 'ignored',
        },
        clicks,
      ),
    ).toEqual({
      ...clicks,
      start: new Date('2026-11-01T10:00:00Z'),
      end: new Date('2026-11-02T11:00:00Z'),
      filters: { channel: 'twitter', country: 'GB', domain: 'svc.test', tag_2: 'a' },
      withBots: true,
    });
    expect(readExportQuery({}, clicks)).toEqual({
      ...clicks,
      start: null,
      end: null,
      filters: {},
      withBots: false,
    });
  });

  it('refuses what statistics refuse, naming the parameter', () => {
    expect(refusal(() => readExportQuery({ end_date: 'yesterday' }, clicks))[0]).toBe(400);
    expect(refusal(() => readExportQuery({ channel: ['a', 'b'] }, clicks))).toEqual([
      400,
      'Invalid parameter channel: takes one value per request',
    ]);
    expect(refusal(() => readExportQuery({ device: 'phone' }, clicks))).toEqual([
      400,
      'Invalid parameter device: must be one of desktop, mobile, tablet, other',
    ]);
    expect(refusal(() => readExportQuery({ with_bots: 'maybe' }, clicks))).toEqual([
      400,
      'Invalid parameter with_bots: must be true or false',
    ]);
  });

  it('refuses click dimensions on links and bots on conversions and links', () => {
    const links = { kind: 'links', format: 'csv' } as const;
    expect(refusal(() => readExportQuery({ city: 'London' }, links))).toEqual([
      400,
      'Invalid parameter city: filters clicks and conversions, not links',
    ]);
    expect(
      refusal(() => readExportQuery({ with_bots: 'true' }, { ...links, kind: 'conversions' })),
    ).toEqual([400, 'Invalid parameter with_bots: only clicks have bots, not conversions']);
    expect(readExportQuery({ with_bots: 'false', channel: 'x' }, links).filters).toEqual({
      channel: 'x',
    });
  });
});
