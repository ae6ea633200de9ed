import type { Test } from 'supertest';
import { TestApp } from '../support/app';

/** A POST to an administration endpoint with the test's subscription keys and a `json` object. */
export function adminPost(t: TestApp, route: string, json: unknown): Test {
  return t.http
    .post(route)
    .type('form')
    .send({
      subscription_key: t.subscriptionKey,
      application_key: t.applicationKey,
      json: JSON.stringify(json),
    });
}
