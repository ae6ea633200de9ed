import { AppError } from '../common/app-error';
import { parseLinkHost } from '../common/validators';
import { readLinkInput } from '../links/link-input';
import { isValidCustomPath, svcId } from '../links/link-path';
import { FILTER_MAX_LENGTH, FilterField, isSharedAtField } from './stats-fields';
import { filterNames, readStatsQuery } from './stats-query';

/** The error readStatsQuery throws for the parameters, as `status message`, or 'ok'. */
function outcome(params: Record<string, unknown>): string {
  try {
    readStatsQuery(params, 'totals', false);
    return 'ok';
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return `${error.status} ${error.message}`;
  }
}

/** Whether link creation takes the parameters. */
function created(params: Record<string, unknown>): boolean {
  try {
    readLinkInput(params);
    return true;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return false;
  }
}

const url = (length: number) =>
  `https://example.com/${'a'.repeat(length - 'https://example.com/'.length)}`;

describe('stats filter lengths follow their fields', () => {
  // device takes only its classes (below); every other text filter any value up to its length.
  const textFilters = filterNames('totals').filter(
    (name) => !isSharedAtField(name) && name !== 'device',
  ) as FilterField[];

  it.each(textFilters)(
    '%s: a value of its longest length is taken, one character more is refused',
    (name) => {
      const max = FILTER_MAX_LENGTH[name];
      const value = (length: number) =>
        name === 'original_url' ? url(length) : 'x'.repeat(length);
      expect(outcome({ [name]: value(max) })).toBe('ok');
      expect(outcome({ [name]: value(max + 1) })).toBe(
        `400 Invalid parameter ${name}: must be at most ${max} characters`,
      );
    },
  );

  it('original_url takes every URL link creation takes', () => {
    expect(FILTER_MAX_LENGTH.original_url).toBe(4096);
    expect(created({ url: url(4096) })).toBe(true);
    expect(created({ url: url(4097) })).toBe(false);
  });

  it.each([
    'channel',
    'campaign',
    'service_postid',
    'tag',
    'tool',
    'user_id',
    'tag_2',
    'tag_3',
    'tag_4',
    'tag_5',
  ] as const)('%s: as long as link creation takes it', (name) => {
    const max = FILTER_MAX_LENGTH[name];
    expect(created({ [name]: 'x'.repeat(max) })).toBe(true);
    expect(created({ [name]: 'x'.repeat(max + 1) })).toBe(false);
  });

  it('sharer_id is a UUID; domain, svc_id and parent as long as the longest connected domain and path make them', () => {
    expect(FILTER_MAX_LENGTH.sharer_id).toBe('0b7c6f0e-5a43-4c1e-9d7a-2f1e8c3b4a59'.length);
    const label = 'a'.repeat(63);
    const domain = `${label}.${label}.${label}.${'a'.repeat(61)}:65535_${'S'.repeat(64)}`;
    expect(parseLinkHost(domain)).not.toBeNull();
    expect(parseLinkHost(`a${domain}`)).toBeNull();
    expect(domain.length).toBe(FILTER_MAX_LENGTH.domain);
    const path = 'p'.repeat(200);
    expect(isValidCustomPath(path)).toBe(true);
    expect(isValidCustomPath(`${path}p`)).toBe(false);
    expect(svcId(domain, path).length).toBe(FILTER_MAX_LENGTH.svc_id);
    expect(FILTER_MAX_LENGTH.parent).toBe(FILTER_MAX_LENGTH.svc_id);
  });
});

describe('click-dimension filters', () => {
  it('take a country of two letters in any case, compared upper case', () => {
    expect(readStatsQuery({ country: 'gb' }, 'range', false).filters).toEqual({ country: 'GB' });
    for (const bad of ['G', '1A', 'G-']) {
      expect(outcome({ country: bad })).toBe(
        '400 Invalid parameter country: must be a two-letter ISO 3166-1 country code',
      );
    }
    expect(outcome({ country: 'GBR' })).toBe(
      '400 Invalid parameter country: must be at most 2 characters',
    );
  });

  it('take a device class only, and compare referring hosts in lower case', () => {
    expect(readStatsQuery({ device: 'tablet' }, 'totals', false).filters).toEqual({
      device: 'tablet',
    });
    expect(outcome({ device: 'phone' })).toBe(
      '400 Invalid parameter device: must be one of desktop, mobile, tablet, other',
    );
    expect(readStatsQuery({ referrer_host: 'Google.COM' }, 'range', false).filters).toEqual({
      referrer_host: 'google.com',
    });
  });

  it('refuse the share sorts where shares are null, and take them otherwise', () => {
    for (const query of [
      { group_by: 'country', sort_type: 'shares' },
      { group_by: 'channel', country: 'US', sort_type: 'clicks_per_share' },
      { group_by: 'channel', pivot: 'os', pivot_sort_type: 'shares' },
    ]) {
      expect(outcome(query)).toMatch(
        /^400 Invalid parameter (pivot_)?sort_type: .* is null by click dimensions/,
      );
    }
    expect(outcome({ group_by: 'channel', sort_type: 'shares' })).toBe('ok');
  });

  it('group and pivot range and totals alike', () => {
    expect(readStatsQuery({ group_by: 'city', pivot: 'browser' }, 'totals', false)).toMatchObject({
      groupBy: 'city',
      pivot: 'browser',
    });
  });
});
