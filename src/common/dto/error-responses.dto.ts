import { ApiProperty } from '@nestjs/swagger';

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
      subscription_key: 'sub_4f1c0a9e8b7d6c5b4a3f2e1d',
      method: 'list',
      object: 'project',
    },
  })
  request: Record<string, unknown>;
  @ApiProperty({ type: AdminErrorDetailDto })
  error: AdminErrorDetailDto;
}
