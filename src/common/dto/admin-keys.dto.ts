import { ApiProperty } from '@nestjs/swagger';
import { APPLICATION_KEY_EXAMPLE, SUBSCRIPTION_KEY_EXAMPLE } from './request-echo.dto';

/** subscription_key's description in an administration API over `owned` (domains, webhooks). */
export const subscriptionKeyDoc = (owned: string) => ({
  description: `Key of the subscription that owns the ${owned}.`,
  example: SUBSCRIPTION_KEY_EXAMPLE,
});

/** application_key's description in an administration API. */
export const ADMIN_APPLICATION_KEY_DOC = {
  description: 'Key of an application authorised to administer that subscription.',
  example: APPLICATION_KEY_EXAMPLE,
};

/**
 * subscription_key and application_key, both required, of an administration API whose objects
 * (`owned`: domains, webhooks) the subscription owns (docs/api.md, "Administration"). A DTO
 * extends the class this makes, under its own name.
 */
export function AdminKeysParams(owned: string) {
  class AdminKeysParamsDto {
    @ApiProperty(subscriptionKeyDoc(owned))
    subscription_key: string;

    @ApiProperty(ADMIN_APPLICATION_KEY_DOC)
    application_key: string;
  }
  return AdminKeysParamsDto;
}
