import { Controller, Get, HttpCode, Param, Post, Req, applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { Params } from '../common/params.decorator';
import { PREFIXED_KEY_EXAMPLES } from '../common/dto/request-echo.dto';
import { adminResponse } from '../common/request-echo';
import { CurrentSubscription, SubscriptionAuth } from '../subscriptions/subscription.decorators';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import {
  APPLICATION_KEY_DOC,
  CreateProjectParamsDto,
  ProjectKeysParamsDto,
  SUBSCRIPTION_KEY_DOC,
  UpdateProjectParamsDto,
} from './dto/project-params.dto';
import {
  ProjectDeletedResponseDto,
  ProjectListResponseDto,
  ProjectRecordDto,
  ProjectResponseDto,
  toProjectRecord,
} from './dto/project-record.dto';
import { ProjectsService } from './projects.service';
import { ProjectCreationObjectDto, ProjectUpdateObjectDto } from './dto/project-objects.dto';

type AdminBody<T> = { request: Record<string, unknown> | null; response: T };

/** An example error body of the admin endpoints (docs/api.md, "Errors"). */
function errorExample(method: string, code: number, message: string, apikey = false) {
  return {
    request: {
      subscription_key: PREFIXED_KEY_EXAMPLES.subscription,
      ...(apikey
        ? { apikey: '3f9a0c2b7d4e4f1a8b6c5d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a' }
        : {}),
      method,
      object: 'project',
    },
    error: { code, message },
  };
}

/** The 400/403/404 answers every project endpoint can give, with example bodies. */
function ApiProjectErrors(method: string, options: { apikey: boolean; json: boolean }) {
  const decorators = [
    ApiResponse({
      status: 400,
      description: options.json
        ? 'Missing or invalid parameter (code 1001/1002), project name exists (10001), domain not connected to the subscription (10003), unknown user (10005)'
        : 'Missing or invalid parameter (code 1001/1002)' +
          (method === 'delete' ? '; project still has users (10002)' : ''),
      schema: {
        example: options.json
          ? errorExample(
              method,
              10001,
              'Invalid parameter json.name: a project named "acme-blog" already exists',
              options.apikey,
            )
          : method === 'delete'
            ? errorExample(
                method,
                10002,
                'Project acme-blog still has 2 users; remove them (json.remove_user on update) before destroying it',
                true,
              )
            : errorExample(
                method,
                1001,
                'Missing required parameter: application_key',
                options.apikey,
              ),
      },
    }),
    ApiResponse({
      status: 403,
      description: options.apikey
        ? 'Invalid subscription_key or application_key (code 1000); the project belongs to another subscription (1004)'
        : 'Invalid subscription_key or application_key (code 1000)',
      schema: {
        example: errorExample(
          method,
          1000,
          'Invalid API key specified (subscription_key)',
          options.apikey,
        ),
      },
    }),
  ];
  if (options.apikey) {
    decorators.push(
      ApiParam({
        name: 'api_key',
        description: 'The project API key (64 lowercase hex characters).',
        example: '3f9a0c2b7d4e4f1a8b6c5d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a',
      }),
      ApiResponse({
        status: 404,
        description:
          'No live project has this api_key (code 1003); destroyed projects are refused at once',
        schema: {
          example: errorExample(
            method,
            1003,
            'Project not found: no live project has this api_key',
            true,
          ),
        },
      }),
    );
  }
  return applyDecorators(...decorators);
}

/** POST parameters: form fields (or the query string). */
function ApiFormParams(type: new () => object) {
  return applyDecorators(
    ApiConsumes('application/x-www-form-urlencoded', 'application/json'),
    ApiBody({ type }),
  );
}

/** GET parameters: the query string. */
function ApiKeyQuery() {
  return applyDecorators(
    ApiQuery({ name: 'subscription_key', required: true, ...SUBSCRIPTION_KEY_DOC }),
    ApiQuery({ name: 'application_key', required: true, ...APPLICATION_KEY_DOC }),
  );
}

/**
 * Projects administration (docs/api.md, "Administration"). SubscriptionGuard checks the keys after
 * the parameters DTO, as the validation pipe did before the services authenticated.
 */
@ApiTags('projects')
@ApiExtraModels(ProjectCreationObjectDto, ProjectUpdateObjectDto)
@Controller('projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Post('new')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a project',
    description:
      'Creates a project owned by the subscription. The answer is the project record without conversions. Users named by a new e-mail address are created and receive a welcome e-mail.',
  })
  @ApiFormParams(CreateProjectParamsDto)
  @ApiOkResponse({ type: ProjectResponseDto })
  @ApiProjectErrors('new', { apikey: false, json: true })
  @SubscriptionAuth({ application: 'optional', params: CreateProjectParamsDto })
  async create(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Params() params: CreateProjectParamsDto,
  ): Promise<AdminBody<{ project: ProjectRecordDto }>> {
    const details = await this.projects.create(subscription, params.json);
    return adminResponse(req, { project: toProjectRecord(details, false) });
  }

  @Post('list')
  @HttpCode(200)
  @ApiOperation({
    summary: 'List projects',
    description: 'Every live project of the subscription, oldest first, with conversions.',
  })
  @ApiFormParams(ProjectKeysParamsDto)
  @ApiOkResponse({ type: ProjectListResponseDto })
  @ApiProjectErrors('list', { apikey: false, json: false })
  @SubscriptionAuth({ application: 'required', params: ProjectKeysParamsDto })
  list(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
  ): Promise<AdminBody<{ projects: ProjectRecordDto[] }>> {
    return this.listProjects(req, subscription);
  }

  @Get('list')
  @ApiOperation({
    summary: 'List projects (GET form)',
    description: 'As POST /projects/list; POST is preferred.',
  })
  @ApiKeyQuery()
  @ApiOkResponse({ type: ProjectListResponseDto })
  @ApiProjectErrors('list', { apikey: false, json: false })
  @SubscriptionAuth({ application: 'required', params: ProjectKeysParamsDto })
  listByGet(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
  ): Promise<AdminBody<{ projects: ProjectRecordDto[] }>> {
    return this.listProjects(req, subscription);
  }

  @Post(':api_key/update')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Update a project',
    description:
      'Applies the update object (only what changes). The answer is the project record without conversions.',
  })
  @ApiFormParams(UpdateProjectParamsDto)
  @ApiOkResponse({ type: ProjectResponseDto })
  @ApiProjectErrors('update', { apikey: true, json: true })
  @SubscriptionAuth({ application: 'optional', params: UpdateProjectParamsDto })
  async update(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('api_key') apiKey: string,
    @Params() params: UpdateProjectParamsDto,
  ): Promise<AdminBody<{ project: ProjectRecordDto }>> {
    const details = await this.projects.update(subscription, apiKey, params.json);
    return adminResponse(req, { project: toProjectRecord(details, false) });
  }

  @Post(':api_key/show')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Show a project',
    description: 'The project record, including conversions.',
  })
  @ApiFormParams(ProjectKeysParamsDto)
  @ApiOkResponse({ type: ProjectResponseDto })
  @ApiProjectErrors('show', { apikey: true, json: false })
  @SubscriptionAuth({ application: 'required', params: ProjectKeysParamsDto })
  show(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('api_key') apiKey: string,
  ): Promise<AdminBody<{ project: ProjectRecordDto }>> {
    return this.showProject(req, subscription, apiKey);
  }

  @Get(':api_key/show')
  @ApiOperation({
    summary: 'Show a project (GET form)',
    description: 'As POST /projects/{api_key}/show; POST is preferred.',
  })
  @ApiKeyQuery()
  @ApiOkResponse({ type: ProjectResponseDto })
  @ApiProjectErrors('show', { apikey: true, json: false })
  @SubscriptionAuth({ application: 'required', params: ProjectKeysParamsDto })
  showByGet(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('api_key') apiKey: string,
  ): Promise<AdminBody<{ project: ProjectRecordDto }>> {
    return this.showProject(req, subscription, apiKey);
  }

  @Post(':api_key/destroy')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Destroy a project',
    description:
      'Only a project without users (admins, sharers, viewers) can be destroyed. Its API key is refused from then on and its name is free again.',
  })
  @ApiFormParams(ProjectKeysParamsDto)
  @ApiOkResponse({ type: ProjectDeletedResponseDto })
  @ApiProjectErrors('delete', { apikey: true, json: false })
  @SubscriptionAuth({ application: 'required', params: ProjectKeysParamsDto })
  async destroy(
    @Req() req: Request,
    @CurrentSubscription() subscription: SubscriptionEntity,
    @Param('api_key') apiKey: string,
  ): Promise<AdminBody<{ deleted: true }>> {
    await this.projects.destroy(subscription, apiKey);
    return adminResponse(req, { deleted: true as const });
  }

  private async listProjects(
    req: Request,
    subscription: SubscriptionEntity,
  ): Promise<AdminBody<{ projects: ProjectRecordDto[] }>> {
    const projects = await this.projects.list(subscription);
    return adminResponse(req, {
      projects: projects.map((details) => toProjectRecord(details, true)),
    });
  }

  private async showProject(
    req: Request,
    subscription: SubscriptionEntity,
    apiKey: string,
  ): Promise<AdminBody<{ project: ProjectRecordDto }>> {
    const details = await this.projects.show(subscription, apiKey);
    return adminResponse(req, { project: toProjectRecord(details, true) });
  }
}
