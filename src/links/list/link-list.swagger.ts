import { applyDecorators } from '@nestjs/common';
import { ApiPagingQueries, ApiProjectKeyQuery, ApiVersionQuery } from '../../common/api-queries';
import { MAX_PER_PAGE } from '../../common/params';
import { ApiQuery, ApiResponseOptions } from '@nestjs/swagger';
import { LINK_FILTERS, SHARED_AT_RANGE, isMultiTagField, isSharedAtField } from './link-filters';
import { LINK_LIST_SORT_TYPES, SEARCH_MAX_LENGTH, SEARCH_MAX_WORDS } from './link-list-params';

/** What a filter parameter says of itself in the OpenAPI document. */
function filterDescription(name: string): string {
  if (name === 'tool') return 'Filter (one value): a tool key or label';
  if (isSharedAtField(name)) {
    const what = {
      shared_at_hour_of_day: 'hour of the day',
      shared_at_day_of_week: 'day of the week, 0 = Monday',
      shared_at_hour_of_week: 'hour of the ISO week, 0 = Monday 00:00',
    }[name];
    return `Filter (one value): the ${what} the link was shared (UTC), 0 to ${SHARED_AT_RANGE[name]}`;
  }
  if (isMultiTagField(name)) return 'Filter (one value): one of the link’s values';
  return 'Filter (one value)';
}

/** url/list's parameters (docs/api.md, "Listing links"). */
export function ApiLinkListParameters(): MethodDecorator {
  return applyDecorators(
    ApiVersionQuery(),
    ApiProjectKeyQuery(),
    ApiQuery({
      type: String,
      name: 'search',
      required: false,
      description: `Words (at most ${SEARCH_MAX_WORDS}, ${SEARCH_MAX_LENGTH} characters in all) that must each appear, in any case, in the link's URL (original_url), notes, tag or campaign`,
      example: 'spring sale',
    }),
    ApiQuery({
      enum: LINK_LIST_SORT_TYPES,
      name: 'sort_type',
      required: false,
      description:
        'created_at (default) or clicks (all-time, known crawlers left out; a link without clicks counts 0); ties by the link id',
    }),
    ApiQuery({
      enum: ['asc', 'desc'],
      name: 'sort_order',
      required: false,
      description: 'desc (default): newest or most clicked first',
    }),
    ...ApiPagingQueries(`Default 10, at most ${MAX_PER_PAGE}`),
    ...LINK_FILTERS.map((name) =>
      ApiQuery({
        type: String,
        name,
        required: false,
        description: filterDescription(name),
      }),
    ),
  );
}

export const LINK_LIST_ERRORS: ApiResponseOptions = {
  status: 400,
  description:
    'Bad parameter (named in error_message), unsupported format, missing v or key, sort_type=clicks with a search finding more than 50,000 links. Also: 403 invalid API key, 429 over READ_RATE_LIMIT (with Retry-After), 503 analytics store unavailable.',
  schema: {
    example: {
      error: 400,
      error_message: 'Invalid parameter sort_type: must be one of created_at, clicks',
    },
  },
};
