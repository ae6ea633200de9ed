import { applyDecorators } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiQuery,
} from '@nestjs/swagger';
import {
  ApiAdminForm,
  adminEcho,
  adminErrorResponses,
  adminExample,
  adminKeyQueries,
} from '../common/admin-swagger';
import { ErrorCode } from '../common/app-error';
import { AdminKeysParams } from '../common/dto/admin-keys.dto';
import {
  ADMIN_KEY_EXAMPLES,
  PROJECT_KEY_EXAMPLE,
  RequestEcho,
} from '../common/dto/request-echo.dto';
import { adminTimestamp } from '../common/time';
import { ERASURE_KINDS } from './erasure-input';
import type { ErasureRow } from './erasure.repository';

const ERASURE_ID_EXAMPLE = '6f1d3c2a-8b4e-4f7a-9c1d-2e3f4a5b6c7d';
export const ERASE_JSON_EXAMPLE = JSON.stringify({ session_id: 'c2f9e1b04d6a' });

/** The erasure object, sent as the JSON string `json` of erase. */
export class ErasureObjectDto {
  @ApiPropertyOptional({
    description:
      "A visitor's session (conversions/new's session_id, the tracking script's cookie).",
    example: 'c2f9e1b04d6a',
  })
  session_id?: string;

  @ApiPropertyOptional({
    description: "A visitor's clicker_id, as conversions/new recorded it.",
    example: 'visitor-8812',
  })
  clicker_id?: string;

  @ApiPropertyOptional({
    description:
      "A visitor's IPv4 or IPv6 address: the clicks and conversion records stored with it, or with its anonymised form (its /24 or /48).",
    example: '81.2.69.160',
  })
  ip?: string;

  @ApiPropertyOptional({
    description: 'A sharer: a user id of the project (a UUID), as links carry it.',
    example: '0b8e6a52-3c1f-4d7e-9a25-6f4c8d1e2b37',
  })
  sharer_id?: string;

  @ApiPropertyOptional({
    description: "A sharer by the links' user_id.",
    example: 'crm-42',
  })
  user_id?: string;
}

export class EraseParamsDto extends AdminKeysParams('project') {
  @ApiProperty({
    description:
      'JSON string: the erasure object, with exactly one of session_id, clicker_id, ip (a visitor), sharer_id, user_id (a sharer).',
    example: ERASE_JSON_EXAMPLE,
  })
  json: string;
}

export class ErasuresParamsDto extends AdminKeysParams('project') {
  @ApiPropertyOptional({ description: 'Erasures per page, 1 to 1000 (default 10).', example: '10' })
  per_page?: string;

  @ApiPropertyOptional({ description: 'The page, from 1 (default 1).', example: '1' })
  page?: string;

  @ApiPropertyOptional({
    description: "Erasures to skip (overrides page): the previous answer's last_offset.",
    example: '10',
  })
  offset?: string;
}

const COUNTS = { type: 'object', additionalProperties: { type: 'integer' } } as const;

export class ErasureRowsDto {
  @ApiProperty({
    ...COUNTS,
    description:
      'PostgreSQL: rows changed per table (conversions, clicks, webhook_delivery_log, event_outbox; a sharer: links and user_identities too).',
    example: { conversions: 2, clicks: 0, webhook_delivery_log: 1, event_outbox: 0 },
  })
  postgresql: Record<string, number>;

  @ApiProperty({
    ...COUNTS,
    description:
      'The analytics store: rows changed per table (clicks, conversions; a sharer: links, clicks_retired and conversions_retired too).',
    example: { clicks: 3, conversions: 0 },
  })
  analytics: Record<string, number>;
}

export class ErasureRecordDto {
  @ApiProperty({ description: 'The erasure id.', example: ERASURE_ID_EXAMPLE })
  id: string;

  @ApiProperty({
    description: 'What the erasure named (never its value).',
    enum: ERASURE_KINDS,
    example: 'session_id',
  })
  by: string;

  @ApiProperty({ type: ErasureRowsDto })
  rows: ErasureRowsDto;

  @ApiProperty({
    description:
      'False when more than 10,000 conversion records (a visitor) or links (a sharer) matched: the same request again erases the next ones.',
    example: true,
  })
  complete: boolean;

  @ApiProperty({
    description: 'When it was done, UTC (both stores were erased before the answer).',
    example: '2026-12-01 10:42:07',
  })
  erased_at: string;
}

export class EraseBodyDto {
  @ApiProperty({ type: ErasureRecordDto })
  erasure: ErasureRecordDto;
}

export class ErasuresBodyDto {
  @ApiProperty({ type: [ErasureRecordDto], description: "The project's erasures, newest first." })
  erasures: ErasureRecordDto[];

  @ApiProperty({ type: 'integer', description: 'Erasures over every page.', example: 1 })
  total_results: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The page asked for (1 by default); null when offset was given.',
    example: 1,
  })
  page: number | null;

  @ApiProperty({ type: 'integer', example: 10 })
  per_page: number;

  @ApiProperty({ type: 'integer', example: 0 })
  offset: number;

  @ApiProperty({ type: 'integer', description: 'The offset of the next page.', example: 1 })
  last_offset: number;
}

export class EraseResponseDto {
  @RequestEcho(
    ADMIN_KEY_EXAMPLES,
    { json: ERASE_JSON_EXAMPLE, apikey: PROJECT_KEY_EXAMPLE, method: 'erase', object: 'project' },
    'Echo of the parameters as strings, plus `apikey` (from the path), `method` (erase) and `object` (project).',
  )
  request: Record<string, unknown>;

  @ApiProperty({ type: EraseBodyDto })
  response: EraseBodyDto;
}

export class ErasuresResponseDto {
  @RequestEcho(
    ADMIN_KEY_EXAMPLES,
    { apikey: PROJECT_KEY_EXAMPLE, method: 'erasures', object: 'project' },
    'Echo of the parameters as strings, plus `apikey` (from the path), `method` (erasures) and `object` (project).',
  )
  request: Record<string, unknown>;

  @ApiProperty({ type: ErasuresBodyDto })
  response: ErasuresBodyDto;
}

/** An erasure as answered. */
export function toErasureRecord(row: ErasureRow): ErasureRecordDto {
  return {
    id: row.id,
    by: row.kind,
    rows: row.rows,
    complete: row.complete,
    erased_at: adminTimestamp(new Date(row.erased_at)),
  };
}

const echo = (method: string, extra: Record<string, string> = {}) => ({
  ...adminEcho(ADMIN_KEY_EXAMPLES, 'project', method, extra),
  apikey: PROJECT_KEY_EXAMPLE,
});

const errors = adminErrorResponses({
  400: 'Missing or invalid parameter (code 1001, 1002), naming it.',
  403: 'Invalid subscription_key or application_key (code 1000); the project belongs to another subscription (1004).',
  404: 'No live project has this api_key (code 1003).',
});

function commonErrors(method: string, extra: Record<string, string>) {
  return [
    errors(403, {
      badKey: adminExample(
        'Invalid key',
        echo(method, extra),
        ErrorCode.invalidKey,
        'Invalid API key specified (application_key)',
      ),
    }),
    errors(404, {
      notFound: adminExample(
        'Unknown or destroyed project',
        echo(method, extra),
        ErrorCode.notFound,
        'Project not found: no live project has this api_key',
      ),
    }),
  ];
}

const API_KEY_PARAM = ApiParam({
  name: 'api_key',
  description: "The project's API key.",
  example: PROJECT_KEY_EXAMPLE,
});

/** POST /projects/{api_key}/erase. */
export function ApiErase(): MethodDecorator {
  const json = (value: object) => ({ json: JSON.stringify(value) });
  return applyDecorators(
    ApiOperation({
      summary: "Erase a visitor's or a sharer's personal data",
      description:
        "Blanks a visitor's (by session_id, clicker_id or IP address) or a sharer's (by sharer_id or user_id) personal fields in PostgreSQL and the analytics store, and answers once both are done: a receipt with the rows changed per store, kept in the project's erasures. Counts and statistics stay as they were. Idempotent: the same erasure again changes nothing and answers zeros.",
    }),
    API_KEY_PARAM,
    ApiAdminForm(EraseParamsDto, [ErasureObjectDto]),
    ApiOkResponse({ type: EraseResponseDto }),
    errors(400, {
      missingJson: adminExample(
        'No erasure object',
        echo('erase'),
        ErrorCode.missingParameter,
        'Missing required parameter: json',
      ),
      twoKinds: adminExample(
        'More than one identifier',
        echo('erase', json({ session_id: 'c2f9e1b04d6a', ip: '81.2.69.160' })),
        ErrorCode.invalidParameter,
        'Invalid parameter json: give exactly one of session_id, clicker_id, ip, sharer_id, user_id (got session_id, ip): one erasure per request',
      ),
      badIp: adminExample(
        'Not an address',
        echo('erase', json({ ip: '81.2.69' })),
        ErrorCode.invalidParameter,
        'Invalid parameter json.ip: must be an IPv4 or IPv6 address',
      ),
    }),
    ...commonErrors('erase', { json: ERASE_JSON_EXAMPLE }),
  );
}

/** POST and GET /projects/{api_key}/erasures. */
export function ApiErasures(via: 'form' | 'query'): MethodDecorator {
  const paging = [
    { name: 'per_page', description: 'Erasures per page, 1 to 1000 (default 10).', example: '10' },
    { name: 'page', description: 'The page, from 1 (default 1).', example: '1' },
    { name: 'offset', description: 'Erasures to skip (overrides page).', example: '10' },
  ];
  return applyDecorators(
    ApiOperation({
      summary: via === 'form' ? "A project's erasures" : "A project's erasures (GET)",
      description:
        "The project's audit of erasures, newest first, paged: id, what kind of identifier (never its value), rows changed per store, time.",
    }),
    API_KEY_PARAM,
    ...(via === 'form'
      ? [ApiAdminForm(ErasuresParamsDto, [])]
      : [
          ...adminKeyQueries('project').map((param) => ApiQuery({ ...param, type: String })),
          ...paging.map((param) => ApiQuery({ ...param, required: false, type: String })),
        ]),
    ApiOkResponse({ type: ErasuresResponseDto }),
    errors(400, {
      badPage: adminExample(
        'per_page out of range',
        echo('erasures', { per_page: '5000' }),
        ErrorCode.invalidParameter,
        'Invalid parameter per_page: must be an integer from 1 to 1000',
      ),
    }),
    ...commonErrors('erasures', {}),
  );
}
