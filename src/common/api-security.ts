import { ApiSecurity, DocumentBuilder, SecurityRequirementObject } from '@nestjs/swagger';

/**
 * The keys of the API as OpenAPI `apiKey` security schemes (docs/api.md): the guards that check a
 * key also declare its scheme on their operation (ProjectKeyAuth, SubscriptionAuth), so the document
 * cannot drift from what is enforced. Every key is read from the query string or the form body
 * alike; a scheme can only say `query`, where Swagger UI's Authorize button sends it.
 */
export const API_KEY_SCHEMES = {
  projectKey: {
    name: 'key',
    description: [
      "A project's `api_key`: every link, list, statistics and conversion endpoint.",
      "The project's publishable key is sent as `key` too, and only conversions/new,",
      'url/retweet and url/share take it (docs/api.md, "Security"); any other endpoint answers it with 403.',
    ].join(' '),
  },
  subscriptionKey: {
    name: 'subscription_key',
    description:
      'The subscription that owns the projects, domains and webhooks: every administration endpoint.',
  },
  applicationKey: {
    name: 'application_key',
    description: [
      'An application authorised on the subscription: required with `subscription_key` on show, list,',
      'destroy and every domain and webhook operation, checked when given on project new and update.',
    ].join(' '),
  },
} as const;

export type ApiKeyScheme = keyof typeof API_KEY_SCHEMES;

/** Declares the schemes on the document (Swagger UI's Authorize button offers each). */
export function addApiKeySchemes(builder: DocumentBuilder): DocumentBuilder {
  for (const [scheme, { name, description }] of Object.entries(API_KEY_SCHEMES)) {
    builder.addApiKey({ type: 'apiKey', in: 'query', name, description }, scheme);
  }
  return builder;
}

/**
 * The operation takes every one of `schemes` together; each call adds an alternative (an operation
 * where application_key is optional accepts {subscription, application} or {subscription}).
 */
export function ApiKeys(...schemes: ApiKeyScheme[]): MethodDecorator & ClassDecorator {
  const requirement: SecurityRequirementObject = {};
  for (const scheme of schemes) requirement[scheme] = [];
  return ApiSecurity(requirement);
}

/**
 * `security` of an operation that takes no key (health, metrics, the tracking script): given in its
 * @ApiOperation, since @nestjs/swagger drops an empty @ApiSecurity list.
 */
export const NO_KEY: SecurityRequirementObject[] = [];
