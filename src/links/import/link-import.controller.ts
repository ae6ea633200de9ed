import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AppError, ErrorCode, Errors } from '../../common/app-error';
import { RawParams, single } from '../../common/params';
import { Params } from '../../common/params.decorator';
import { adminResponse } from '../../common/request-echo';
import { ProjectLookupsService } from '../../projects/project-lookups.service';
import { CurrentSubscription, SubscriptionAuth } from '../../subscriptions/subscription.decorators';
import { SubscriptionEntity } from '../../subscriptions/subscription.entity';
import { IMPORT_FORMATS, ImportFormat } from './import-formats';
import { ImportReport, LinkImportService } from './link-import.service';
import {
  ApiImport,
  IMPORT_MAX_BYTES,
  IMPORT_MAX_LISTED,
  IMPORT_MEDIA_TYPES,
  ImportBodyDto,
} from './link-import.swagger';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `POST /projects/{api_key}/import` (docs/api.md, "Importing links"): an administration operation
 * (both keys, the admin shape) on a project of the subscription. The file is the request body,
 * read whole up to IMPORT_MAX_BYTES before anything is made; the CLI (`import`) reads any size.
 */
@ApiTags('projects')
@Controller('projects')
export class LinkImportController {
  constructor(
    private readonly imports: LinkImportService,
    private readonly projects: ProjectLookupsService,
  ) {}

  @Post(':api_key/import')
  @HttpCode(200)
  @ApiImport()
  @SubscriptionAuth({ application: 'required' })
  async import(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('api_key') apiKey: string,
    @Params() params: RawParams,
  ): Promise<{ request: Record<string, unknown> | null; response: ImportBodyDto }> {
    const format = readFormat(single(params, 'format', 32));
    const domain = single(params, 'domain', 255);
    const project = await this.projects.findOwned(subscription.id, apiKey);
    const text = await readBody(req);
    const report: ImportReport = await this.imports.run(project, once(text), {
      format,
      domain,
      maxListed: IMPORT_MAX_LISTED,
    });
    return adminResponse(req, { import: report });
  }
}

function readFormat(value: string | undefined): ImportFormat {
  if (value === undefined) throw Errors.missing('format');
  if (!(IMPORT_FORMATS as readonly string[]).includes(value)) {
    throw Errors.invalid('format', `must be one of ${IMPORT_FORMATS.join(', ')}`);
  }
  return value as ImportFormat;
}

/**
 * The body as text: refused past IMPORT_MAX_BYTES as soon as it is known (its Content-Length, or
 * the bytes read), nothing past it kept; invalid UTF-8 is a 400.
 * A form or JSON body was read by the body parsers already: the file must come as itself.
 */
async function readBody(req: Request): Promise<string> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (!(IMPORT_MEDIA_TYPES as readonly string[]).includes(type)) {
    throw Errors.invalid(
      'file',
      `send the file as the request body, with Content-Type ${IMPORT_MEDIA_TYPES.join(', ')}`,
    );
  }
  const tooLarge = () =>
    new AppError(
      413,
      ErrorCode.invalidParameter,
      `Invalid parameter file: larger than ${IMPORT_MAX_BYTES} bytes, the most this endpoint takes; import a larger file with \`npm run svc -- import\``,
    );
  if (Number(req.headers['content-length'] ?? 0) > IMPORT_MAX_BYTES) throw tooLarge();
  const parts: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    const stop = (error?: Error) => {
      req.off('data', onData).off('end', stop).off('error', stop);
      if (error) reject(error);
      else resolve();
    };
    const onData = (part: Buffer) => {
      size += part.length;
      if (size <= IMPORT_MAX_BYTES) return void parts.push(part);
      // Nothing more is kept: once answered, Node reads the rest of the body away.
      stop(tooLarge());
    };
    req.on('data', onData).on('end', stop).on('error', stop);
  });
  if (size === 0) throw Errors.missing('file');
  try {
    return utf8.decode(Buffer.concat(parts, size));
  } catch {
    throw Errors.invalid('file', 'is not valid UTF-8');
  }
}

async function* once(text: string): AsyncGenerator<string> {
  await Promise.resolve();
  yield text;
}
