import { probeApp } from '../../test/support/probe-app';
import { ArgumentsHost, Catch, Controller, Get, Param, Req, UseFilters } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Request } from 'express';
import request from 'supertest';
import { ApiFormatted, FormattedResult } from '../common/api-format';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { AppExceptionFilter } from '../common/exception.filter';
import { RawParams } from '../common/params';
import { CurrentProject, CurrentProjects, ProjectKeyAuth } from './project-key.decorators';
import { ProjectRequest } from './project-key.guard';
import { KeyedProject, ProjectLookupsService, keyKindOf } from './project-lookups.service';
import { ProjectEntity } from './project.entity';

const KEY = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const UNKNOWN = 'c'.repeat(64);
const PUBLISHABLE = `pk_${'d'.repeat(32)}`;
const UNKNOWN_PUBLISHABLE = `pk_${'e'.repeat(32)}`;
const ONE = { id: 'p1', name: 'one' } as ProjectEntity;
const PROJECTS: Record<string, ProjectEntity> = {
  [KEY]: ONE,
  [OTHER]: { id: 'p2', name: 'two' } as ProjectEntity,
  [PUBLISHABLE]: ONE,
};
/** A 400's body (docs/api.md, "Errors"). */
const badRequest = (error_message: string) => ({ error: 400, error_message });
const NEEDS_API_KEY = {
  error: 403,
  error_message: "This endpoint needs the project's api_key; a publishable key may not call it",
};

function find(key: string): KeyedProject | null {
  const project = PROJECTS[key];
  const kind = keyKindOf(key);
  return project && kind ? { project, kind } : null;
}

/** What reached the handlers: a refused request must leave this empty. */
const reached: string[] = [];
const lookups: string[] = [];
/** What a refused request carried: its project and kind of key, once the key was valid. */
const refused: string[] = [];

@Catch()
class RecordingFilter extends AppExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<ProjectRequest>();
    refused.push(`${req.project?.name ?? '-'} ${req.keyKind ?? '-'}`);
    super.catch(exception, host);
  }
}

/** retweet's kind of check: answered after the format, before `v` and the key. */
function refuseStop(params: RawParams, req: Request): void {
  if (params.stop !== undefined) throw Errors.invalid('stop', `refused on ${req.path}`);
}

@Controller()
class ProbeController {
  @Get('linkish.:format')
  @ApiFormatted()
  @UseFilters(RecordingFilter)
  @ProjectKeyAuth({ version: true, before: refuseStop })
  linkish(@CurrentProject() project: ProjectEntity) {
    reached.push(`linkish ${project.name}`);
    return new FormattedResult({ name: project.name }, () => project.name);
  }

  /** A page's endpoint (retweet, share): the publishable key may call it, without `lock`. */
  @Get('pageish.:format')
  @ApiFormatted()
  @ProjectKeyAuth({ version: true, publishable: { refuse: ['lock', 'seal'] } })
  pageish(@CurrentProject() project: ProjectEntity, @Req() req: ProjectRequest) {
    reached.push(`pageish ${project.name} ${req.keyKind}`);
    return new FormattedResult({ name: project.name });
  }

  @Get('totalish.json')
  @ApiFormatted({ formatInPath: false })
  @ProjectKeyAuth({ version: true, many: 3 })
  totalish(@CurrentProjects() projects: ProjectEntity[]) {
    reached.push(`totalish ${projects.map((p) => p.name).join(',')}`);
    return new FormattedResult({ names: projects.map((p) => p.name) });
  }

  @Get('conversionish/new')
  @ProjectKeyAuth({ publishable: true })
  conversionish(@CurrentProject() project: ProjectEntity, @Req() req: ProjectRequest) {
    reached.push(`conversionish ${project.name} ${req.keyKind}`);
    return { name: project.name };
  }

  /** A handler that forgot @ProjectKeyAuth(): it must not run with no project. */
  @Get('forgotten/:id')
  forgotten(@CurrentProject() project: ProjectEntity, @Param('id') id: string) {
    reached.push(`forgotten ${id} ${project.name}`);
    return { id };
  }
}

describe('ProjectKeyGuard', () => {
  const app = probeApp(() =>
    Test.createTestingModule({
      controllers: [ProbeController],
      providers: [
        {
          provide: ProjectLookupsService,
          useValue: {
            getActiveByKey: (key: string): Promise<KeyedProject> => {
              lookups.push(key);
              const found = find(key);
              if (!found) {
                throw new AppError(403, ErrorCode.invalidKey, 'Invalid API key specified');
              }
              return Promise.resolve(found);
            },
            findActiveByKey: (key: string): Promise<KeyedProject | null> =>
              Promise.resolve(find(key)),
          },
        },
      ],
    }).compile(),
  );

  beforeEach(() => {
    reached.length = 0;
    lookups.length = 0;
    refused.length = 0;
  });

  const get = (path: string) => request(app().getHttpServer()).get(path);

  it('hands the project of a valid key to the handler', async () => {
    const res = await get(`/linkish.json?v=3&key=${KEY}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ name: 'one' });
    expect(reached).toStrictEqual(['linkish one']);
  });

  it('answers 403 for an unknown key without reaching the handler', async () => {
    const res = await get(`/linkish.json?v=3&key=${UNKNOWN}`);
    expect(res.status).toBe(403);
    expect(res.body).toStrictEqual({ error: 403, error_message: 'Invalid API key specified' });
    expect(lookups).toStrictEqual([UNKNOWN]);
    expect(reached).toStrictEqual([]);
  });

  it('answers 400 for a missing or repeated key without looking anything up', async () => {
    const missing = await get('/linkish.json?v=3');
    expect(missing.status).toBe(400);
    expect(missing.body).toStrictEqual(badRequest('Missing required parameter: key'));
    const repeated = await get(`/linkish.json?v=3&key=${KEY}&key=${KEY}`);
    expect(repeated.status).toBe(400);
    expect(repeated.body).toStrictEqual(
      badRequest('Invalid parameter key: must be given once, as a single value'),
    );
    expect(lookups).toStrictEqual([]);
    expect(reached).toStrictEqual([]);
  });

  it('checks the format, then the endpoint’s own checks, then v, then the key', async () => {
    const format = await get(`/linkish.xml?stop=1&key=${UNKNOWN}`);
    expect(format.status).toBe(400);
    expect(format.body).toStrictEqual(
      badRequest('Invalid parameter format: "xml" is not supported; use json or txt'),
    );
    const callback = await get(`/linkish.txt?callback=cb&stop=1&key=${UNKNOWN}`);
    expect(callback.status).toBe(400);
    expect(callback.text).toBe('Invalid parameter callback: requires the json format');
    const own = await get(`/linkish.json?stop=1&key=${UNKNOWN}`);
    expect(own.body).toStrictEqual(badRequest('Invalid parameter stop: refused on /linkish.json'));
    const version = await get(`/linkish.json?v=2&key=${UNKNOWN}`);
    expect(version.body).toStrictEqual(badRequest('Invalid parameter v: must be 3'));
    const noVersion = await get(`/linkish.json?key=${UNKNOWN}`);
    expect(noVersion.body).toStrictEqual(badRequest('Missing required parameter: v'));
    expect(lookups).toStrictEqual([]);
    expect(reached).toStrictEqual([]);
  });

  it('renders its refusal in the request’s format (txt, JSON-P)', async () => {
    const txt = await get(`/linkish.txt?v=3&key=${UNKNOWN}`);
    expect(txt.status).toBe(403);
    expect(txt.text).toBe('Invalid API key specified');
    const jsonp = await get(`/linkish.json?v=3&key=${UNKNOWN}&callback=cb`);
    expect(jsonp.status).toBe(403);
    expect(jsonp.text).toBe('cb({"error":403,"error_message":"Invalid API key specified"});');
  });

  it('takes key[] of several projects where many is allowed, each a credential', async () => {
    const both = await get(`/totalish.json?v=3&key[]=${KEY}&key[]=${OTHER}&key[]=${KEY}`);
    expect(both.status).toBe(200);
    expect(both.body).toStrictEqual({ names: ['one', 'two'] });
    const single = await get(`/totalish.json?v=3&key=${OTHER}`);
    expect(single.body).toStrictEqual({ names: ['two'] });
    expect(reached).toStrictEqual(['totalish one,two', 'totalish two']);

    reached.length = 0;
    const one = await get(`/totalish.json?v=3&key[]=${KEY}&key[]=${UNKNOWN}`);
    expect(one.status).toBe(403);
    expect(one.body).toStrictEqual({ error: 403, error_message: 'Invalid API key specified' });
    // The limit counts the values given, repeated ones too.
    const tooMany = await get(
      `/totalish.json?v=3&key[]=${KEY}&key[]=${OTHER}&key[]=${KEY}&key[]=${KEY}`,
    );
    expect(tooMany.body).toStrictEqual(
      badRequest('Invalid parameter key: takes 1 to 3 project keys'),
    );
    const object = await get(`/totalish.json?v=3&key[]=${KEY}&key[][a]=${OTHER}`);
    expect(object.body).toStrictEqual(
      badRequest('Invalid parameter key: must be project API keys'),
    );
    expect(reached).toStrictEqual([]);
  });

  it('checks neither format nor v where the route has none (conversions)', async () => {
    const res = await get(`/conversionish/new?callback=1bad&key=${KEY}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ name: 'one' });
    const unknown = await get(`/conversionish/new?key=${UNKNOWN}`);
    expect(unknown.status).toBe(403);
    expect(reached).toStrictEqual(['conversionish one secret']);
  });

  it('never runs a handler that takes @CurrentProject() without @ProjectKeyAuth()', async () => {
    const res = await get(`/forgotten/1?key=${KEY}`);
    expect(res.status).toBe(500);
    expect(lookups).toStrictEqual([]);
    expect(reached).toStrictEqual([]);
  });

  describe('the publishable key (docs/api.md, "Keys")', () => {
    it('is refused by default, after its lookup, with its project on the request', async () => {
      const res = await get(`/linkish.json?v=3&key=${PUBLISHABLE}`);
      expect(res.status).toBe(403);
      expect(res.body).toStrictEqual(NEEDS_API_KEY);
      const txt = await get(`/linkish.txt?v=3&key=${PUBLISHABLE}`);
      expect(txt.status).toBe(403);
      expect(txt.text).toBe(NEEDS_API_KEY.error_message);
      // An unknown publishable key is an unknown key, whatever the endpoint.
      const unknown = await get(`/linkish.json?v=3&key=${UNKNOWN_PUBLISHABLE}`);
      expect(unknown.body).toStrictEqual({
        error: 403,
        error_message: 'Invalid API key specified',
      });
      expect(lookups).toStrictEqual([PUBLISHABLE, PUBLISHABLE, UNKNOWN_PUBLISHABLE]);
      expect(refused).toStrictEqual(['one publishable', 'one publishable', '- -']);
      expect(reached).toStrictEqual([]);
    });

    it('calls an endpoint that accepts it, which reads the kind of key', async () => {
      const conversion = await get(`/conversionish/new?key=${PUBLISHABLE}`);
      expect(conversion.status).toBe(200);
      expect(conversion.body).toStrictEqual({ name: 'one' });
      const page = await get(`/pageish.json?v=3&key=${PUBLISHABLE}`);
      expect(page.status).toBe(200);
      const secret = await get(`/pageish.json?v=3&key=${KEY}`);
      expect(secret.status).toBe(200);
      expect(reached).toStrictEqual([
        'conversionish one publishable',
        'pageish one publishable',
        'pageish one secret',
      ]);
    });

    it('answers 403 naming the first refused parameter it gives, empty ones too', async () => {
      const lock = await get(`/pageish.json?v=3&key=${PUBLISHABLE}&seal=&lock=1`);
      expect(lock.status).toBe(403);
      expect(lock.body).toStrictEqual({
        error: 403,
        error_message: "A publishable key may not set lock; it needs the project's api_key",
      });
      const seal = await get(`/pageish.json?v=3&key=${PUBLISHABLE}&seal=`);
      expect(seal.body).toStrictEqual({
        error: 403,
        error_message: "A publishable key may not set seal; it needs the project's api_key",
      });
      // The API key may give them (the endpoint decides what they mean).
      const secret = await get(`/pageish.json?v=3&key=${KEY}&lock=1&seal=1`);
      expect(secret.status).toBe(200);
      expect(reached).toStrictEqual(['pageish one secret']);
    });

    it('is refused in key[], among API keys too', async () => {
      const alone = await get(`/totalish.json?v=3&key[]=${PUBLISHABLE}`);
      expect(alone.status).toBe(403);
      expect(alone.body).toStrictEqual(NEEDS_API_KEY);
      const among = await get(`/totalish.json?v=3&key[]=${KEY}&key[]=${PUBLISHABLE}`);
      expect(among.body).toStrictEqual(NEEDS_API_KEY);
      const single = await get(`/totalish.json?v=3&key=${PUBLISHABLE}`);
      expect(single.body).toStrictEqual(NEEDS_API_KEY);
      expect(reached).toStrictEqual([]);
    });
  });
});
