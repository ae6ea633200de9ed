import { Type, applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiExtraModels, ApiResponse } from '@nestjs/swagger';
import { ADMIN_APPLICATION_KEY_DOC, subscriptionKeyDoc } from './dto/admin-keys.dto';

/** An error example of an administration operation, as Swagger shows it. */
export type AdminExample = { summary: string; value: unknown };

/**
 * The request echo of an administration example (docs/api.md, "Errors"): both keys, the
 * operation's own parameters, then `method` and `object`.
 */
export function adminEcho(
  keys: { subscription: string; application: string },
  object: string,
  method: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    subscription_key: keys.subscription,
    application_key: keys.application,
    ...extra,
    method,
    object,
  };
}

/** An administration error example: the request echo and `{code, message}`. */
export function adminExample(
  summary: string,
  request: Record<string, string>,
  code: number,
  message: string,
): AdminExample {
  return { summary, value: { request, error: { code, message } } };
}

/** A decorator maker for an administration API's error responses, each status described once. */
export function adminErrorResponses(
  descriptions: Record<400 | 403 | 404, string>,
): (status: 400 | 403 | 404, examples: Record<string, AdminExample>) => MethodDecorator {
  return (status, examples) => ApiResponse({ status, description: descriptions[status], examples });
}

/**
 * An administration operation's parameters as a form body (POST; the API reads the query string
 * too): `type`, with the schemas of the JSON objects (`objects`) its `json` field carries.
 */
export function ApiAdminForm(type: Type<unknown>, objects: Type<unknown>[]): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(...objects),
    ApiConsumes('application/x-www-form-urlencoded', 'application/json'),
    ApiBody({ type, description: 'Form parameters (the query string is read too).' }),
  );
}

/** subscription_key and application_key as query parameters (GET), described as the DTOs' are. */
export function adminKeyQueries(
  owned: string,
): { name: string; description: string; example: string; required: boolean }[] {
  return [
    { name: 'subscription_key', ...subscriptionKeyDoc(owned), required: true },
    { name: 'application_key', ...ADMIN_APPLICATION_KEY_DOC, required: true },
  ];
}
