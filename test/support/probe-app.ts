import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { TestingModule } from '@nestjs/testing';
import { AppExceptionFilter } from '../../src/common/exception.filter';
import { parseQueryString } from '../../src/common/query-parser';
import { createValidationPipe } from '../../src/common/validation';

/**
 * A Nest application over a testing module's probe controllers, for the specs of a guard: the
 * service's query parser and exception filter (and its validation pipe with `validation`). Started
 * before the file's tests and closed after them; the answer reads it once started.
 */
export function probeApp(
  compile: () => Promise<TestingModule>,
  options: { validation?: boolean } = {},
): () => INestApplication {
  let app: INestApplication | undefined;
  beforeAll(async () => {
    const nest = (await compile()).createNestApplication<NestExpressApplication>({ logger: false });
    nest.set('query parser', parseQueryString);
    if (options.validation) nest.useGlobalPipes(createValidationPipe());
    nest.useGlobalFilters(new AppExceptionFilter());
    app = await nest.init();
  });
  afterAll(async () => {
    await app?.close();
  });
  return () => {
    if (!app) throw new Error('the probe application is not started');
    return app;
  };
}
