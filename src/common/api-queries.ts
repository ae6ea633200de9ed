import { ApiQuery } from '@nestjs/swagger';

/**
 * Query parameters that the read endpoints share, each described once in the OpenAPI document
 * (docs/api.md, "Statistics" and "Listing links").
 */

/** `v=3`: the version every read names. */
export function ApiVersionQuery(): MethodDecorator {
  return ApiQuery({ enum: ['3'], name: 'v', required: true, example: '3' });
}

/** The project `key`. */
export function ApiProjectKeyQuery(description = 'Project API key'): MethodDecorator {
  return ApiQuery({ type: String, name: 'key', required: true, description });
}

/** An optional `true`/`false` flag. */
export function ApiFlagQuery(name: string, description?: string): MethodDecorator {
  return ApiQuery({
    enum: ['true', 'false'],
    name,
    required: false,
    ...(description === undefined ? {} : { description }),
  });
}

/** `per_page`, `page` and `offset`, which overrides page. */
export function ApiPagingQueries(
  perPage: string,
  offset = 'Overrides page: the previous last_offset',
): MethodDecorator[] {
  return [
    ApiQuery({ type: 'integer', name: 'per_page', required: false, description: perPage }),
    ApiQuery({ type: 'integer', name: 'page', required: false, description: 'From 1 (default)' }),
    ApiQuery({ type: 'integer', name: 'offset', required: false, description: offset }),
  ];
}
