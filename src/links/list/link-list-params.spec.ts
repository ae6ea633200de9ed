import { linkListQuery } from '../../../test/factories/link-list-query';
import { AppError } from '../../common/app-error';
import { LINK_FILTERS, LINK_FILTER_MAX_LENGTH, isSharedAtField } from './link-filters';
import { readLinkListQuery } from './link-list-params';

/** The error readLinkListQuery throws for the parameters, as `status message`, or 'ok'. */
function outcome(params: Record<string, unknown>): string {
  try {
    readLinkListQuery(params);
    return 'ok';
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return `${error.status} ${error.message}`;
  }
}

describe('url/list parameters', () => {
  it('defaults: no filter or search, newest first, page 1 of 10', () => {
    expect(readLinkListQuery({})).toEqual(linkListQuery());
  });

  it('pages as statistics do: page from 1, offset overrides it (page null)', () => {
    expect(readLinkListQuery({ page: '3', per_page: '25' })).toMatchObject({
      page: 3,
      perPage: 25,
      offset: 50,
    });
    expect(readLinkListQuery({ page: '3', offset: '7' })).toMatchObject({ page: null, offset: 7 });
    expect(outcome({ per_page: '0' })).toBe(
      '400 Invalid parameter per_page: must be an integer from 1 to 1000',
    );
    expect(outcome({ per_page: '1001' })).toBe(
      '400 Invalid parameter per_page: must be an integer from 1 to 1000',
    );
    expect(outcome({ per_page: '1000' })).toBe('ok');
    expect(outcome({ page: '0' })).toBe(
      '400 Invalid parameter page: must be an integer from 1 to 1000000',
    );
    expect(outcome({ offset: '1.5' })).toBe(
      '400 Invalid parameter offset: must be an integer from 0 to 100000000',
    );
  });

  it('sort_type created_at or clicks, sort_order asc or desc in any case', () => {
    expect(readLinkListQuery({ sort_type: 'clicks', sort_order: 'ASC' })).toMatchObject({
      sortType: 'clicks',
      sortOrder: 'asc',
    });
    expect(outcome({ sort_type: 'shares' })).toBe(
      '400 Invalid parameter sort_type: must be one of created_at, clicks',
    );
    expect(outcome({ sort_order: 'up' })).toBe(
      '400 Invalid parameter sort_order: must be asc or desc',
    );
    expect(outcome({ sort_type: ['clicks', 'clicks'] })).toBe(
      '400 Invalid parameter sort_type: must be given once, as a single value',
    );
  });

  it('search: words split on white space, each once, at most 10', () => {
    expect(readLinkListQuery({ search: '  Blue\twidget\n blue Blue ' }).search).toEqual([
      'Blue',
      'widget',
      'blue',
    ]);
    expect(readLinkListQuery({ search: '   ' }).search).toEqual([]);
    expect(outcome({ search: 'a b c d e f g h i j' })).toBe('ok');
    expect(outcome({ search: 'a b c d e f g h i j k' })).toBe(
      '400 Invalid parameter search: takes at most 10 words',
    );
    expect(outcome({ search: 'x'.repeat(4097) })).toBe(
      '400 Invalid parameter search: must be at most 4096 characters',
    );
  });

  it.each(LINK_FILTERS.filter((name) => !isSharedAtField(name)))(
    '%s: one value up to its length',
    (name) => {
      const max = LINK_FILTER_MAX_LENGTH[name];
      expect(outcome({ [name]: 'x'.repeat(max) })).toBe('ok');
      expect(outcome({ [name]: 'x'.repeat(max + 1) })).toBe(
        `400 Invalid parameter ${name}: must be at most ${max} characters`,
      );
      expect(outcome({ [name]: ['a', 'b'] })).toBe(
        `400 Invalid parameter ${name}: takes one value per request`,
      );
      expect(readLinkListQuery({ [name]: '' }).filters).toEqual({});
    },
  );

  it('shared_at_* take an integer in their range', () => {
    expect(readLinkListQuery({ shared_at_hour_of_week: '167' }).filters).toEqual({
      shared_at_hour_of_week: '167',
    });
    expect(outcome({ shared_at_hour_of_day: '24' })).toBe(
      '400 Invalid parameter shared_at_hour_of_day: must be an integer from 0 to 23',
    );
    expect(outcome({ shared_at_day_of_week: '-1' })).toBe(
      '400 Invalid parameter shared_at_day_of_week: must be an integer from 0 to 6',
    );
  });

  it("a domain's host compares in any case, its segment as connected", () => {
    expect(readLinkListQuery({ domain: 'GO.Example_Deals' }).filters).toEqual({
      domain: 'go.example_Deals',
    });
  });

  it('checks the filters, then search, sort_type, sort_order and paging', () => {
    expect(
      outcome({ per_page: '0', sort_type: 'x', search: 'a b c d e f g h i j k', tag: ['a', 'b'] }),
    ).toBe('400 Invalid parameter tag: takes one value per request');
    expect(outcome({ per_page: '0', sort_order: 'x', sort_type: 'x' })).toBe(
      '400 Invalid parameter sort_type: must be one of created_at, clicks',
    );
  });
});
