import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { ApiFlagQuery, ApiProjectKeyQuery, ApiVersionQuery } from '../common/api-queries';
import { filterQuery } from '../stats/stats.swagger';
import { EXPORT_FILTERS, EXPORT_FORMATS, EXPORT_KINDS } from './export-params';
import { CONTENT_TYPES } from './export.service';

/** The export endpoint in the OpenAPI document (docs/api.md, "Export"). */
export function ApiExport(summary: string): MethodDecorator {
  const files = EXPORT_KINDS.flatMap((kind) => EXPORT_FORMATS.map((f) => `${kind}.${f}`));
  const binary = { schema: { type: 'string', format: 'binary' } };
  return applyDecorators(
    ApiOperation({ summary }),
    ApiParam({
      name: 'file',
      enum: files,
      description:
        'What and how: clicks, conversions or links, as csv (a header line), ndjson or parquet',
    }),
    ApiVersionQuery(),
    ApiProjectKeyQuery(),
    ApiQuery({
      type: String,
      name: 'start_date',
      required: false,
      description: 'Events from, or links shared from (rounded down to the hour)',
    }),
    ApiQuery({
      type: String,
      name: 'end_date',
      required: false,
      description: 'Rounded up to the hour',
    }),
    ApiFlagQuery('with_bots', 'Clicks by known crawlers too (default false; clicks only)'),
    ...EXPORT_FILTERS.map((name) =>
      filterQuery(name, `Filter (one value)${name === 'tool' ? ': key or label' : ''}`),
    ),
    ApiOkResponse({
      description:
        'The file, streamed (Content-Disposition: attachment); an error after the first byte cuts the answer short',
      content: Object.fromEntries(
        EXPORT_FORMATS.map((format) => [CONTENT_TYPES[format].split(';')[0], binary]),
      ),
    }),
    ApiResponse({
      status: 400,
      description:
        'Bad parameter (named in error_message); 403 invalid API key; 404 no such export; 429 over READ_RATE_LIMIT (with Retry-After); 503 analytics store out of reach',
      schema: {
        example: {
          error: 400,
          error_message: 'Invalid parameter end_date: must be after start_date',
        },
      },
    }),
  );
}
