import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiQuery } from '@nestjs/swagger';
import { ApiFormatted } from '../common/api-format';
import {
  ApiFlagQuery,
  ApiPagingQueries,
  ApiProjectKeyQuery,
  ApiVersionQuery,
} from '../common/api-queries';
import { SORT_TYPES } from './dto/stats-responses.dto';
import { DEVICE_CLASSES } from '../enrichment/user-agent';
import { DIMENSION_FIELDS } from './stats-fields';
import { MAX_TOTALS_KEYS, StatsKind, filterNames, groupFields } from './stats-query';

/** The statistics endpoints' parameters and errors in the OpenAPI document. */

export const STATS_ERRORS = {
  status: 400,
  description:
    'Bad parameter (named in error_message); 403 invalid API key; 404 unknown link; 429 over READ_RATE_LIMIT (with Retry-After)',
  schema: { example: { error: 400, error_message: 'Missing required parameter: start_date' } },
};

/** A filter parameter: one value; click dimensions described as the extension they are. */
export function filterQuery(name: string, description = 'Filter (one value)'): MethodDecorator {
  if (name === 'device') {
    return ApiQuery({
      enum: DEVICE_CLASSES,
      enumName: 'DeviceClass',
      name,
      required: false,
      description: 'Click dimension filter (extension)',
    });
  }
  const dimension = (DIMENSION_FIELDS as readonly string[]).includes(name);
  return ApiQuery({
    type: String,
    name,
    required: false,
    description: dimension
      ? `Click dimension filter (extension)${name === 'country' ? ': ISO 3166-1 alpha-2' : ''}`
      : description,
  });
}

/** start_date or end_date, with what the endpoint makes of it. */
function dateQuery(
  name: 'start_date' | 'end_date',
  required: boolean,
  description?: string,
  example?: string,
): MethodDecorator {
  return ApiQuery({
    type: String,
    name,
    required,
    ...(description === undefined ? {} : { description }),
    ...(example === undefined ? {} : { example }),
  });
}

/** attribution (docs/api.md, "Share chains"). */
function attributionQuery(): MethodDecorator {
  return ApiQuery({
    enum: ['last', 'first'],
    name: 'attribution',
    required: false,
    description:
      'Extension (share chains): last (default) credits the clicked link, first the root of its cascade',
  });
}

const WITH_BOTS = 'Count clicks by known crawlers too (default false)';

/** What every statistics endpoint takes first: the format, svc_id where given, v and key. */
function leadingParameters(svcId: MethodDecorator[], key?: string): MethodDecorator[] {
  return [
    ApiFormatted({ txt: false, formatInPath: false }),
    ...svcId,
    ApiVersionQuery(),
    ApiProjectKeyQuery(key),
  ];
}

/** svc_id in the path of one link's statistics. */
const linkInPath = (): MethodDecorator[] => [
  ApiParam({ name: 'svc_id', example: 'svc.example_aB3dE9x' }),
];

export function ApiIntervalParameters(): MethodDecorator {
  const decorators = [
    ...leadingParameters(linkInPath()),
    dateQuery('start_date', true, 'Rounded down to the hour; after 2010-06-04', '2026-11-01'),
    dateQuery('end_date', true, 'Rounded up to the hour', '2026-11-23'),
    ApiQuery({
      name: 'interval',
      required: false,
      enum: ['hour', 'day', 'week'],
      description: 'Default day; at most 500 intervals',
    }),
    ApiFlagQuery('with_zeros', 'Include intervals without clicks'),
    ApiFlagQuery('with_metadata', 'Include the link record as metadata'),
    ApiFlagQuery('with_conversions', 'Include conversions per interval and in total'),
    ApiFlagQuery('with_bots', WITH_BOTS),
    attributionQuery(),
    ...DIMENSION_FIELDS.map((name) => filterQuery(name)),
  ];
  return applyDecorators(...decorators);
}

export function ApiAggregateParameters(kind: StatsKind): MethodDecorator {
  const groupField = {
    enum: groupFields(kind),
    enumName: kind === 'totals' ? 'TotalsGroupField' : 'RangeGroupField',
  };
  const decorators = [
    ...leadingParameters(
      [],
      kind === 'totals'
        ? `Project API key, or key[]=… for several projects (at most ${MAX_TOTALS_KEYS}, of any subscriptions)`
        : 'Project API key',
    ),
    dateQuery(
      'start_date',
      false,
      kind === 'totals'
        ? 'Links shared from (rounded down to the hour; after 2011-09-01)'
        : 'Rounded down to the hour',
    ),
    dateQuery('end_date', false, 'Rounded up to the hour'),
    ApiQuery({
      ...groupField,
      name: 'group_by',
      required: false,
      description: `A filter field${kind === 'totals' ? ' (not domain) or project with key[]' : ''}`,
    }),
    ApiQuery({
      ...groupField,
      name: 'pivot',
      required: false,
      description: 'Needs group_by; differs from it and from the filters',
    }),
    ApiQuery({
      enum: SORT_TYPES,
      enumName: 'SortType',
      name: 'sort_type',
      required: false,
      description:
        'clicks (default), shares, clicks_per_share, alpha, shared_at, pageviews, goal_n_count, goal_n_value, goal_total_count, goal_total_value (conversion sorts need with_conversions; shares and clicks_per_share are refused by click dimensions); extension: chain_clicks, chain_shares, amplification (need with_chain)',
    }),
    ApiQuery({ name: 'sort_order', required: false, enum: ['asc', 'desc'] }),
    ApiQuery({ enum: SORT_TYPES, enumName: 'SortType', name: 'pivot_sort_type', required: false }),
    ApiQuery({ name: 'pivot_sort_order', required: false, enum: ['asc', 'desc'] }),
    ...ApiPagingQueries('Default 10, at most 1000'),
    ApiFlagQuery('with_conversions'),
    ApiFlagQuery('with_metadata'),
    ApiFlagQuery('with_zeros', 'Include pivots without activity'),
    ApiFlagQuery('with_bots', WITH_BOTS),
    ApiFlagQuery(
      'with_chain',
      "Extension (share chains): add each row's chain figures, the activity of its links' descendants",
    ),
    attributionQuery(),
    ...filterNames(kind).map((name) =>
      filterQuery(name, `Filter (one value)${name === 'tool' ? ': key or label' : ''}`),
    ),
  ];
  return applyDecorators(...decorators);
}

export function ApiDetailsParameters(batch: boolean): MethodDecorator {
  const decorators = [
    ...leadingParameters(
      batch
        ? [
            ApiQuery({
              type: String,
              name: 'svc_id',
              required: true,
              description: 'svc_id[]=…, repeated (at most 1000)',
            }),
          ]
        : [ApiParam({ name: 'svc_id' })],
    ),
    dateQuery('start_date', false, 'Count clicks from (default: all time)'),
    dateQuery('end_date', false),
    ApiFlagQuery('with_metadata', 'Include the link record'),
    ApiFlagQuery('with_bots'),
  ];
  return applyDecorators(...decorators);
}

export function ApiRangeIntervalParameters(): MethodDecorator {
  const decorators = [
    ...leadingParameters([]),
    dateQuery('start_date', true),
    dateQuery('end_date', true),
    ApiQuery({ name: 'interval', required: false, enum: ['hour', 'day', 'week'] }),
    ApiFlagQuery('with_conversions', 'Conversions per interval and in all (default false)'),
    ApiFlagQuery('with_zeros'),
    ApiFlagQuery('with_bots'),
    attributionQuery(),
    ...filterNames('range').map((name) => filterQuery(name)),
  ];
  return applyDecorators(...decorators);
}

/** stats/{svc_id}/chain.json (**extension**; docs/api.md, "Share chains"). */
export function ApiChainParameters(): MethodDecorator {
  const decorators = [
    ...leadingParameters(linkInPath()),
    dateQuery(
      'start_date',
      false,
      'Activity window from (rounded down to the hour; default: all time)',
    ),
    dateQuery('end_date', false, 'Activity window until (rounded up to the hour)'),
    ApiFlagQuery('with_conversions'),
    ApiFlagQuery('with_bots'),
    ...ApiPagingQueries('Children per page: default 10, at most 1000', 'Overrides page'),
  ];
  return applyDecorators(...decorators);
}
