import {
  Controller,
  Get,
  Header,
  HttpCode,
  Post,
  Req,
  UseGuards,
  applyDecorators,
} from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { NO_KEY } from '../common/api-security';
import { RawParams } from '../common/params';
import { Params } from '../common/params.decorator';
import { ConversionThrottlerGuard } from '../rate-limit/project-throttler.guard';
import { adminResponse } from '../common/request-echo';
import { CurrentKeyKind, CurrentProject, ProjectKeyAuth } from '../projects/project-key.decorators';
import type { KeyKind } from '../projects/project-lookups.service';
import { ProjectEntity } from '../projects/project.entity';
import { ConversionRecord, ConversionsService } from './conversions.service';
import { ConversionResponseDto } from './dto/conversion-response.dto';
import { TRACKING_SCRIPT } from './tracking-script';

/**
 * conversions/new and the tracking script (docs/api.md, "Conversions and the tracking script").
 * ProjectKeyGuard authenticates `key`, the API key or the publishable key the tracking script
 * carries (no `v`, no format here); conversion-input.ts reads the rest.
 * Any origin may call conversions/new: ConversionsModule's middleware says so, refusals included.
 */
@ApiTags('conversions')
@Controller()
export class ConversionsController {
  constructor(private readonly conversions: ConversionsService) {}

  @Get('conversions/new')
  @ApiOperation({ summary: 'Record a pageview or goal against a link' })
  @ApiConversionParameters()
  @ProjectKeyAuth({ publishable: true })
  @UseGuards(ConversionThrottlerGuard) // below: runs before the key guard
  record(
    @CurrentProject() project: ProjectEntity,
    @CurrentKeyKind() key: KeyKind,
    @Params() params: RawParams,
    @Req() req: Request,
  ) {
    return this.handle(project, key, params, req);
  }

  @Post('conversions/new')
  @HttpCode(200)
  @ApiOperation({ summary: 'Record a conversion (POST form)' })
  @ApiConversionParameters()
  @ProjectKeyAuth({ publishable: true })
  @UseGuards(ConversionThrottlerGuard) // below: runs before the key guard
  recordPost(
    @CurrentProject() project: ProjectEntity,
    @CurrentKeyKind() key: KeyKind,
    @Params() params: RawParams,
    @Req() req: Request,
  ) {
    return this.handle(project, key, params, req);
  }

  /** The tracking script: cacheable, no dependencies (README: the snippet). */
  @Get('svc.js')
  @Header('Content-Type', 'application/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=3600')
  @Header('Access-Control-Allow-Origin', '*')
  @ApiOperation({ summary: 'The tracking script for landing pages', security: NO_KEY })
  @ApiOkResponse({
    description: 'The script (JavaScript)',
    content: { 'application/javascript': { schema: { type: 'string' } } },
  })
  script(): string {
    return TRACKING_SCRIPT;
  }

  private async handle(
    project: ProjectEntity,
    key: KeyKind,
    params: RawParams,
    req: Request,
  ): Promise<{ request: unknown; response: { conversion: ConversionRecord } }> {
    const conversion = await this.conversions.record(project, key, params, {
      headers: req.headers,
      clientIp: req.ip ?? null,
    });
    return adminResponse(req, { conversion });
  }
}

function ApiConversionParameters(): MethodDecorator {
  const parameters: [string, boolean, string][] = [
    ['key', true, 'Project publishable key (pk_…, as the tracking script sends it) or API key'],
    ['svc_url', true, 'svc_id of the link that led to the conversion'],
    ['conversion_type', true, 'pageview, goal_1 … goal_5'],
    ['conversion_value', true, 'Integer (cents suggested for money); ignored for pageview'],
    [
      'account_conversion_id',
      false,
      'Your id of the conversion (≤ 50); a repeat returns the first conversion. Also account_conversionid',
    ],
    ['account_user', false, 'Your user id (≤ 50). Also account_userid'],
    ['created_at', false, 'UNIX seconds; default now. Also converted_at'],
    ['ip', false, 'Visitor IP address. Also ip_address'],
    ['language', false, 'Accept-Language of the visitor'],
    ['referrer', false, 'Referrer of the visitor'],
    ['session_id', false, 'The session id of the _svcsession cookie'],
    ['user_agent', false, 'User agent of the visitor'],
    ['href', false, 'The page where the conversion happened'],
    [
      'read_headers',
      false,
      'true: ip (the client address; X-Forwarded-For only as TRUST_PROXY trusts it), user agent, language and referrer from this request',
    ],
    // The original service's spellings, accepted as well.
    ['account_conversionid', false, 'Same as account_conversion_id'],
    ['account_userid', false, 'Same as account_user'],
    ['converted_at', false, 'Same as created_at'],
    ['ip_address', false, 'Same as ip'],
  ];
  const decorators = [
    ...parameters.map(([name, required, description]) => ApiQuery({ name, required, description })),
    ApiResponse({
      status: 200,
      description: '{request: echo (strings) + action, controller; response: {conversion}}',
      type: ConversionResponseDto,
    }),
    ApiResponse({
      status: 400,
      description: 'Bad parameter; 403 invalid key or conversions not enabled; 404 unknown link',
      schema: {
        example: {
          request: { key: '…', action: 'new', controller: 'conversion' },
          error: { code: 1001, message: 'Missing required parameter: svc_url' },
        },
      },
    }),
  ];
  return applyDecorators(...decorators);
}
