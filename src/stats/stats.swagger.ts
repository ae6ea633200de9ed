import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiQuery } from '@nestjs/swagger';
import { ApiFormatted } from '../common/api-format';
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
function filterQuery(name: string, description = 'Filter (one value)'): MethodDecorator {
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

export function ApiIntervalParameters(): MethodDecorator {
  const decorators = [
    ApiFormatted({ txt: false, formatInPath: false }),
    ApiParam({ name: 'svc_id', example: 'svc.example_aB3dE9x' }),
    ApiQuery({ enum: ['3'], name: 'v', required: true, example: '3' }),
    ApiQuery({ type: String, name: 'key', required: true, description: 'Project API key' }),
    ApiQuery({
      type: String,
      name: 'start_date',
      required: true,
      description: 'Rounded down to the hour; after 2010-06-04',
      example: '2026-11-01',
    }),
    ApiQuery({
      type: String,
      name: 'end_date',
      required: true,
      description: 'Rounded up to the hour',
      example: '2026-11-23',
    }),
    ApiQuery({
      name: 'interval',
      required: false,
      enum: ['hour', 'day', 'week'],
      description: 'Default day; at most 500 intervals',
    }),
    ApiQuery({
      enum: ['true', 'false'],
      name: 'with_zeros',
      required: false,
      description: 'Include intervals without clicks',
    }),
    ApiQuery({
      enum: ['true', 'false'],
      name: 'with_metadata',
      required: false,
      description: 'Include the link record as metadata',
    }),
    ApiQuery({
      enum: ['true', 'false'],
      name: 'with_conversions',
      required: false,
      description: 'Include conversions per interval and in total',
    }),
    ApiQuery({
      enum: ['true', 'false'],
      name: 'with_bots',
      required: false,
      description: 'Count clicks by known crawlers too (default false)',
    }),
    ApiQuery({
      enum: ['last', 'first'],
      name: 'attribution',
      required: false,
      description:
        'Extension (share chains): last (default) credits the clicked link, first the root of its cascade',
    }),
    ...DIMENSION_FIELDS.map((name) => filterQuery(name)),
  ];
  return applyDecorators(...decorators);
}

export function ApiAggregateParameters(kind: StatsKind): MethodDecorator {
  const decorators = [
    ApiFormatted({ txt: false, formatInPath: false }),
    ApiQuery({ enum: ['3'], name: 'v', required: true, example: '3' }),
    ApiQuery({
      type: String,
      name: 'key',
      required: true,
      description:
        kind === 'totals'
          ? `Project API key, or key[]=… for several projects (at most ${MAX_TOTALS_KEYS}, of any subscriptions)`
          : 'Project API key',
    }),
    ApiQuery({
      type: String,
      name: 'start_date',
      required: false,
      description:
        kind === 'totals'
          ? 'Links shared from (rounded down to the hour; after 2011-09-01)'
          : 'Rounded down to the hour',
    }),
    ApiQuery({
      type: String,
      name: 'end_date',
      required: false,
      description: 'Rounded up to the hour',
    }),
    ApiQuery({
      enum: groupFields(kind),
      enumName: kind === 'totals' ? 'TotalsGroupField' : 'RangeGroupField',
      name: 'group_by',
      required: false,
      description: `A filter field${kind === 'totals' ? ' (not domain) or project with key[]' : ''}`,
    }),
    ApiQuery({
      enum: groupFields(kind),
      enumName: kind === 'totals' ? 'TotalsGroupField' : 'RangeGroupField',
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
    ApiQuery({
      type: 'integer',
      name: 'per_page',
      required: false,
      description: 'Default 10, at most 1000',
    }),
    ApiQuery({ type: 'integer', name: 'page', required: false, description: 'From 1 (default)' }),
    ApiQuery({
      type: 'integer',
      name: 'offset',
      required: false,
      description: 'Overrides page: the previous last_offset',
    }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_conversions', required: false }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_metadata', required: false }),
    ApiQuery({
      enum: ['true', 'false'],
      name: 'with_zeros',
      required: false,
      description: 'Include pivots without activity',
    }),
    ApiQuery({
      enum: ['true', 'false'],
      name: 'with_bots',
      required: false,
      description: 'Count clicks by known crawlers too (default false)',
    }),
    ApiQuery({
      enum: ['true', 'false'],
      name: 'with_chain',
      required: false,
      description:
        "Extension (share chains): add each row's chain figures, the activity of its links' descendants",
    }),
    ApiQuery({
      enum: ['last', 'first'],
      name: 'attribution',
      required: false,
      description:
        'Extension (share chains): last (default) credits the clicked link, first the root of its cascade',
    }),
    ...filterNames(kind).map((name) =>
      filterQuery(name, `Filter (one value)${name === 'tool' ? ': key or label' : ''}`),
    ),
  ];
  return applyDecorators(...decorators);
}

export function ApiDetailsParameters(batch: boolean): MethodDecorator {
  const decorators = [
    ApiFormatted({ txt: false, formatInPath: false }),
    ...(batch
      ? [
          ApiQuery({
            type: String,
            name: 'svc_id',
            required: true,
            description: 'svc_id[]=…, repeated (at most 1000)',
          }),
        ]
      : [ApiParam({ name: 'svc_id' })]),
    ApiQuery({ enum: ['3'], name: 'v', required: true, example: '3' }),
    ApiQuery({ type: String, name: 'key', required: true, description: 'Project API key' }),
    ApiQuery({
      type: String,
      name: 'start_date',
      required: false,
      description: 'Count clicks from (default: all time)',
    }),
    ApiQuery({ type: String, name: 'end_date', required: false }),
    ApiQuery({
      enum: ['true', 'false'],
      name: 'with_metadata',
      required: false,
      description: 'Include the link record',
    }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_bots', required: false }),
  ];
  return applyDecorators(...decorators);
}

export function ApiRangeIntervalParameters(): MethodDecorator {
  const decorators = [
    ApiFormatted({ txt: false, formatInPath: false }),
    ApiQuery({ enum: ['3'], name: 'v', required: true, example: '3' }),
    ApiQuery({ type: String, name: 'key', required: true, description: 'Project API key' }),
    ApiQuery({ type: String, name: 'start_date', required: true }),
    ApiQuery({ type: String, name: 'end_date', required: true }),
    ApiQuery({ name: 'interval', required: false, enum: ['hour', 'day', 'week'] }),
    ApiQuery({
      enum: ['true', 'false'],
      name: 'with_conversions',
      required: false,
      description: 'Conversions per interval and in all (default false)',
    }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_zeros', required: false }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_bots', required: false }),
    ApiQuery({
      enum: ['last', 'first'],
      name: 'attribution',
      required: false,
      description:
        'Extension (share chains): last (default) credits the clicked link, first the root of its cascade',
    }),
    ...filterNames('range').map((name) => filterQuery(name)),
  ];
  return applyDecorators(...decorators);
}

/** stats/{svc_id}/chain.json (**extension**; docs/api.md, "Share chains"). */
export function ApiChainParameters(): MethodDecorator {
  const decorators = [
    ApiFormatted({ txt: false, formatInPath: false }),
    ApiParam({ name: 'svc_id', example: 'svc.example_aB3dE9x' }),
    ApiQuery({ enum: ['3'], name: 'v', required: true, example: '3' }),
    ApiQuery({ type: String, name: 'key', required: true, description: 'Project API key' }),
    ApiQuery({
      type: String,
      name: 'start_date',
      required: false,
      description: 'Activity window from (rounded down to the hour; default: all time)',
    }),
    ApiQuery({
      type: String,
      name: 'end_date',
      required: false,
      description: 'Activity window until (rounded up to the hour)',
    }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_conversions', required: false }),
    ApiQuery({ enum: ['true', 'false'], name: 'with_bots', required: false }),
    ApiQuery({
      type: 'integer',
      name: 'per_page',
      required: false,
      description: 'Children per page: default 10, at most 1000',
    }),
    ApiQuery({ type: 'integer', name: 'page', required: false, description: 'From 1 (default)' }),
    ApiQuery({
      type: 'integer',
      name: 'offset',
      required: false,
      description: 'Overrides page',
    }),
  ];
  return applyDecorators(...decorators);
}
