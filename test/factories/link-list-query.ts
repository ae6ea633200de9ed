import type { LinkListQuery } from '../../src/links/list/link-list-params';

/** url/list's query with the defaults the API gives (newest first, page 1 of 10); `over` changes it. */
export function linkListQuery(over: Partial<LinkListQuery> = {}): LinkListQuery {
  return {
    filters: {},
    search: [],
    sortType: 'created_at',
    sortOrder: 'desc',
    page: 1,
    perPage: 10,
    offset: 0,
    ...over,
  };
}
