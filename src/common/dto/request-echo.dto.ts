import { ApiProperty } from '@nestjs/swagger';

/** The two keys of an administration request (docs/api.md, "Keys"), as a Swagger example shows them. */
export interface KeyExamples {
  subscription: string;
  application: string;
}

/** The example keys of the domains and webhooks pages. */
export const SUBSCRIPTION_KEY_EXAMPLE = 'RAvHl2kTAwpr7BeImMCr8azjIysn2r-xKOQttLXIB1s';
export const APPLICATION_KEY_EXAMPLE = 'n3o00FsFcTxoSr5TgD-dW-5Yk1wz2t5p8ECENZSS1ac';
export const ADMIN_KEY_EXAMPLES: KeyExamples = {
  subscription: SUBSCRIPTION_KEY_EXAMPLE,
  application: APPLICATION_KEY_EXAMPLE,
};

/** The example keys of the projects pages and the administration error body. */
export const PREFIXED_KEY_EXAMPLES: KeyExamples = {
  subscription: 'sub_4f1c0a9e8b7d6c5b4a3f2e1d',
  application: 'app_9e8d7c6b5a4f3e2d1c0b9a8f',
};

/** The same, elided, in the request echo of the projects answers. */
export const ELIDED_KEY_EXAMPLES: KeyExamples = { subscription: 'sub_…', application: 'app_…' };

/** Project API keys (64 hex characters), as examples name them. */
export const PROJECT_KEY_EXAMPLE =
  '3f9c2b7e5a1d4c8f9e0b6a7d2c5f8e1b4a7d0c3f6e9b2a5d8c1f4e7b0a3d6c9f';
export const OTHER_PROJECT_KEY_EXAMPLE =
  'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';

/**
 * The `request` echo of an administration answer (docs/api.md, "Errors"): both keys, then the
 * operation's example parameters. Without `description`, the field's doc comment describes it.
 */
export function RequestEcho(
  keys: KeyExamples,
  example: Record<string, unknown>,
  description?: string,
): PropertyDecorator {
  return ApiProperty({
    ...(description === undefined ? {} : { description }),
    type: 'object',
    additionalProperties: true,
    example: {
      subscription_key: keys.subscription,
      application_key: keys.application,
      ...example,
    },
  });
}
