import { probeApp } from '../../test/support/probe-app';
import { Controller, Get } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IsOptional, IsString } from 'class-validator';
import request from 'supertest';
import { ApplicationEntity } from './application.entity';
import { hashKey } from './keys';
import { CurrentSubscription, SubscriptionAuth } from './subscription.decorators';
import { SubscriptionEntity } from './subscription.entity';
import { SubscriptionsRepository } from './subscriptions.repository';
import { SubscriptionsService } from './subscriptions.service';

const SUB = 'sub-key';
const APP = 'app-key';
const FOREIGN_APP = 'foreign-app-key';
const subscription = { id: 's1', name: 'acme', keyHash: hashKey(SUB) } as SubscriptionEntity;
const applications = [
  { id: 'a1', subscriptionId: 's1', keyHash: hashKey(APP) },
  { id: 'a2', subscriptionId: 's2', keyHash: hashKey(FOREIGN_APP) },
] as ApplicationEntity[];

/** A parameters DTO as administration's: the keys, optional for the DTO, strings when given. */
class KeysParamsDto {
  @IsOptional()
  @IsString()
  subscription_key?: string;

  @IsOptional()
  @IsString()
  application_key?: string;
}

/** What reached the handlers: a refused request must leave this empty. */
const reached: string[] = [];

/** Paths as administration's, so that errors take the admin shape with the request echo. */
@Controller()
class ProbeController {
  @Get('projects/list')
  @SubscriptionAuth({ application: 'required', params: KeysParamsDto })
  list(@CurrentSubscription() owner: SubscriptionEntity) {
    reached.push(`list ${owner.name}`);
    return { name: owner.name };
  }

  @Get('projects/new')
  @SubscriptionAuth({ application: 'optional', params: KeysParamsDto })
  create(@CurrentSubscription() owner: SubscriptionEntity) {
    reached.push(`new ${owner.name}`);
    return { name: owner.name };
  }

  @Get('domains/list')
  @SubscriptionAuth({ application: 'required' })
  domains(@CurrentSubscription() owner: SubscriptionEntity) {
    reached.push(`domains ${owner.name}`);
    return { name: owner.name };
  }

  /** A handler that forgot @SubscriptionAuth(): it must not run with no subscription. */
  @Get('projects/forgotten')
  forgotten(@CurrentSubscription() owner: SubscriptionEntity) {
    reached.push(`forgotten ${owner.name}`);
    return { name: owner.name };
  }
}

describe('SubscriptionGuard', () => {
  const repository = {
    findSubscriptionByKeyHash: (hash: string) =>
      Promise.resolve(hash === subscription.keyHash ? subscription : null),
    findApplicationByKeyHash: (hash: string) =>
      Promise.resolve(applications.find((a) => a.keyHash === hash) ?? null),
  };
  const app = probeApp(
    () =>
      Test.createTestingModule({
        controllers: [ProbeController],
        providers: [
          SubscriptionsService,
          { provide: SubscriptionsRepository, useValue: repository },
        ],
      })
        .useMocker(() => ({}))
        .compile(),
    { validation: true },
  );

  beforeEach(() => {
    reached.length = 0;
  });

  const get = (path: string, query: Record<string, unknown>) =>
    request(app().getHttpServer()).get(path).query(query);

  it('hands the subscription of valid keys to the handler', async () => {
    const res = await get('/projects/list', { subscription_key: SUB, application_key: APP });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ name: 'acme' });
    expect(reached).toStrictEqual(['list acme']);
  });

  it('refuses missing and unknown keys with the admin errors, never reaching the handler', async () => {
    const missing = await get('/projects/list', { application_key: APP });
    expect(missing.status).toBe(400);
    expect(missing.body).toStrictEqual({
      request: { application_key: APP, method: 'list', object: 'project' },
      error: { code: 1001, message: 'Missing required parameter: subscription_key' },
    });
    const unknown = await get('/domains/list', { subscription_key: 'nope', application_key: APP });
    expect(unknown.status).toBe(403);
    expect(unknown.body).toStrictEqual({
      request: { subscription_key: 'nope', application_key: APP, method: 'list', object: 'domain' },
      error: { code: 1000, message: 'Invalid API key specified (subscription_key)' },
    });
    const noApplication = await get('/domains/list', { subscription_key: SUB });
    expect(noApplication.status).toBe(400);
    expect(noApplication.body.error).toStrictEqual({
      code: 1001,
      message: 'Missing required parameter: application_key',
    });
    expect(reached).toStrictEqual([]);
  });

  it('lets an optional application_key be absent, but checks one that is given', async () => {
    const without = await get('/projects/new', { subscription_key: SUB });
    expect(without.status).toBe(200);
    const foreign = await get('/projects/new', {
      subscription_key: SUB,
      application_key: FOREIGN_APP,
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toStrictEqual({
      code: 1000,
      message: 'Invalid API key specified (application_key)',
    });
    expect(reached).toStrictEqual(['new acme']);
  });

  it('validates the route’s parameters DTO before the keys, as the pipe answered it', async () => {
    const dto = await get('/projects/list', {
      subscription_key: 'nope',
      'application_key[]': [APP, APP],
    });
    expect(dto.status).toBe(400);
    expect(dto.body.error).toStrictEqual({
      code: 1002,
      message: 'Invalid parameter application_key: application_key must be a string',
    });
    // Without a DTO, the key reader's own rule answers.
    const plain = await get('/domains/list', { 'subscription_key[]': [SUB, SUB] });
    expect(plain.body.error).toStrictEqual({
      code: 1002,
      message: 'Invalid parameter subscription_key: must be a single string',
    });
    expect(reached).toStrictEqual([]);
  });

  it('never runs a handler that takes @CurrentSubscription() without @SubscriptionAuth()', async () => {
    const res = await get('/projects/forgotten', { subscription_key: SUB, application_key: APP });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe(1099);
    expect(reached).toStrictEqual([]);
  });
});
