import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiQuery,
  ApiResponse,
} from '@nestjs/swagger';
import { adminExample, adminKeyQueries } from '../../common/admin-swagger';
import { ErrorCode } from '../../common/app-error';
import {
  ADMIN_KEY_EXAMPLES,
  PROJECT_KEY_EXAMPLE,
  RequestEcho,
} from '../../common/dto/request-echo.dto';
import { IMPORT_FORMATS } from './import-formats';

/** The largest file the endpoint takes (docs/api.md, "Importing links"); the CLI has no cap. */
export const IMPORT_MAX_BYTES = 4 * 1024 * 1024;
/** The most rejected lines an answer lists (all are counted). */
export const IMPORT_MAX_LISTED = 1000;

/** The media types the file may be sent as: the body is the file as it is. */
export const IMPORT_MEDIA_TYPES = [
  'text/csv',
  'text/plain',
  'application/x-ndjson',
  'application/octet-stream',
] as const;

export class ImportRejectionDto {
  /** The line of the file (from 1; a record's first line). */
  @ApiProperty({ example: 7 })
  line: number;

  /** Why the line made no link. */
  @ApiProperty({ example: 'url: must be an absolute http(s) URL' })
  reason: string;
}

export class ImportReportDto {
  @ApiProperty({ enum: IMPORT_FORMATS, example: 'shlink' })
  format: string;

  /** Links the file described (its header line is none), rejected ones included. */
  @ApiProperty({ example: 12 })
  read: number;

  /** Links made. */
  @ApiProperty({ example: 9 })
  made: number;

  /** Links the project already had: the same path on the same domain, to the same URL. */
  @ApiProperty({ example: 1 })
  skipped: number;

  /** Lines that made no link (each in `rejections`, up to 1,000). */
  @ApiProperty({ example: 2 })
  rejected: number;

  /** The imported clicks of the links made (the file's counts, never click rows). */
  @ApiProperty({ example: 1520 })
  imported_clicks: number;

  @ApiProperty({ type: [ImportRejectionDto] })
  rejections: ImportRejectionDto[];
}

export class ImportBodyDto {
  @ApiProperty({ type: ImportReportDto })
  import: ImportReportDto;
}

export class ImportResponseDto {
  @RequestEcho(
    ADMIN_KEY_EXAMPLES,
    { format: 'shlink', apikey: PROJECT_KEY_EXAMPLE, method: 'import', object: 'project' },
    'Echo of the query parameters as strings, plus `apikey` (from the path), `method` (import) and `object` (project).',
  )
  request: Record<string, unknown>;

  @ApiProperty({ type: ImportBodyDto })
  response: ImportBodyDto;
}

const echo = (extra: Record<string, string> = {}) => ({
  subscription_key: ADMIN_KEY_EXAMPLES.subscription,
  application_key: ADMIN_KEY_EXAMPLES.application,
  format: 'shlink',
  ...extra,
  apikey: PROJECT_KEY_EXAMPLE,
  method: 'import',
  object: 'project',
});

/** The operation's documentation: parameters, the body, the answer and its errors. */
export function ApiImport(): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      summary: 'Import links into a project',
      description:
        "Reads another shortener's export (the request body, at most 4 MiB) and makes its links in the project, each on its short path and domain. A second import of the same file makes nothing. Answers a report: made, skipped, and the rejected lines with their reasons.",
    }),
    ApiParam({
      name: 'api_key',
      description: "The project's API key.",
      example: PROJECT_KEY_EXAMPLE,
    }),
    ...adminKeyQueries('projects').map((param) => ApiQuery({ ...param, type: String })),
    ApiQuery({
      name: 'format',
      description:
        'What the file is: shlink, yourls, bitly, kutt or csv (docs/api.md, "Importing links").',
      enum: IMPORT_FORMATS,
      required: true,
    }),
    ApiQuery({
      name: 'domain',
      description:
        "The links' domain instead of the one the file names (default: the file's, else the project's default domain); one the project may make links on.",
      example: 'go.example.com',
      required: false,
      type: String,
    }),
    ApiConsumes(...IMPORT_MEDIA_TYPES),
    ApiBody({
      description: 'The file as it is, UTF-8, at most 4 MiB.',
      schema: { type: 'string', format: 'binary' },
    }),
    ApiOkResponse({ type: ImportResponseDto }),
    ApiResponse({
      status: 400,
      description:
        'A missing or invalid parameter (code 1001, 1002), naming it: format, domain, file.',
      examples: {
        format: adminExample(
          'Unknown format',
          echo({ format: 'rebrandly' }),
          ErrorCode.invalidParameter,
          'Invalid parameter format: must be one of shlink, yourls, bitly, kutt, csv',
        ),
        header: adminExample(
          'Not a file of that format',
          echo(),
          ErrorCode.invalidParameter,
          'Invalid parameter file: its first line names no column longurl, shortcode: not a shlink file',
        ),
      },
    }),
    ApiResponse({
      status: 413,
      description: 'The file is larger than 4 MiB (code 1002): import it with the CLI.',
      examples: {
        tooLarge: adminExample(
          'File too large',
          echo(),
          ErrorCode.invalidParameter,
          'Invalid parameter file: larger than 4194304 bytes, the most this endpoint takes; import a larger file with `npm run svc -- import`',
        ),
      },
    }),
  );
}
