import { ApiProperty } from '@nestjs/swagger';
import { PREFIXED_KEY_EXAMPLES } from './request-echo.dto';

/** The error body of link and stats endpoints. */
export class LinkErrorDto {
  @ApiProperty({ type: 'integer', description: 'The HTTP status', example: 400 })
  error: number;
  @ApiProperty({ example: 'Missing required parameter: start_date' })
  error_message: string;
}

export class AdminErrorDetailDto {
  @ApiProperty({
    type: 'integer',
    description: 'Error code (docs/api.md lists them)',
    example: 1001,
  })
  code: number;
  @ApiProperty({ example: 'Missing required parameter: application_key' })
  message: string;
}

/** The error body of administration and conversions endpoints. */
export class AdminErrorDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Echo of the parameters as strings, plus what the path names (apikey, hostname or id, method and object; action and controller for conversions)',
    example: {
      subscription_key: PREFIXED_KEY_EXAMPLES.subscription,
      method: 'list',
      object: 'project',
    },
  })
  request: Record<string, unknown>;
  @ApiProperty({ type: AdminErrorDetailDto })
  error: AdminErrorDetailDto;
}
