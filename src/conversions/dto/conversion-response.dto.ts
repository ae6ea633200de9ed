import { ApiProperty } from '@nestjs/swagger';
import { CONVERSION_TYPES } from '../../common/goals';

/** A recorded conversion, as conversions/new answers it (the original service's field names). */
export class ConversionRecordDto {
  @ApiProperty({ example: '6d62d628-b832-40b4-bfd1-71437f0ba2d9' })
  id: string;
  @ApiProperty({ description: 'svc_id of the link', example: 'localhost:3000_aB3dE9x' })
  svc_url: string;
  @ApiProperty({ enum: CONVERSION_TYPES, example: 'goal_1' })
  type: (typeof CONVERSION_TYPES)[number];
  @ApiProperty({ type: 'integer', description: '0 for a pageview', example: 1999 })
  value: number;
  @ApiProperty({ type: 'integer', description: 'UNIX seconds', example: 1795692847 })
  converted_at: number;
  @ApiProperty({ description: 'The subscription owning the project' })
  account_id: string;
  @ApiProperty({ type: String, nullable: true, example: 'order-1' })
  account_conversionid: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'u-7' })
  account_userid: string | null;
  @ApiProperty({ type: String, nullable: true })
  clicker_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  href: string | null;
  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7' })
  ip_address: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'en-GB' })
  language: string | null;
  @ApiProperty({
    description: 'The click the conversion is attributed to, or an id of its own (docs/api.md)',
  })
  redirection_id: string;
  @ApiProperty({ type: String, nullable: true })
  referrer: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'sess-1' })
  session_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  user_agent: string | null;
}

export class ConversionBodyDto {
  @ApiProperty({ type: ConversionRecordDto })
  conversion: ConversionRecordDto;
}

/** conversions/new: the request echo and the conversion. */
export class ConversionResponseDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Echo of the parameters as strings, plus action (new) and controller (conversion)',
    example: {
      key: '…',
      svc_url: 'localhost:3000_aB3dE9x',
      action: 'new',
      controller: 'conversion',
    },
  })
  request: Record<string, unknown>;
  @ApiProperty({ type: ConversionBodyDto })
  response: ConversionBodyDto;
}
