import { ApiProperty } from '@nestjs/swagger';
import { APPLICATION_KEY_EXAMPLE, SUBSCRIPTION_KEY_EXAMPLE } from './request-echo.dto';

/**
 * subscription_key and application_key, both required, of an administration API whose objects
 * (`owned`: domains, webhooks) the subscription owns (docs/api.md, "Administration"). A DTO
 * extends the class this makes, under its own name.
 */
export function AdminKeysParams(owned: string) {
  class AdminKeysParamsDto {
    @ApiProperty({
      description: `Key of the subscription that owns the ${owned}.`,
      example: SUBSCRIPTION_KEY_EXAMPLE,
    })
    subscription_key: string;

    @ApiProperty({
      description: 'Key of an application authorised to administer that subscription.',
      example: APPLICATION_KEY_EXAMPLE,
    })
    application_key: string;
  }
  return AdminKeysParamsDto;
}
