import { ApiProperty } from '@nestjs/swagger';

/** The form of POST /events/stream/token when the api_key is not in a header. */
export class StreamTokenFormDto {
  @ApiProperty({
    required: false,
    description:
      'Project API key (64 hex characters), unless given in Authorization or X-Api-Key; never in the query string',
  })
  key?: string;
}

/** A stream token (docs/api.md, "Live feed"). */
export class StreamTokenDto {
  @ApiProperty({
    description:
      'Opens one stream: GET /events/stream?token=…; used up by that request, whatever its answer',
    example: 'stk_7d2f0c9b4e6a8d1f3b5c7e9a0b2d4f6e8a1c3e5b7d9f0a2c4e6b8d0f1a3c5e7b',
  })
  token: string;

  @ApiProperty({
    type: 'integer',
    description: 'Seconds until the token expires if no stream opened with it',
    example: 60,
  })
  expires_in: number;
}
