import { ApiProperty } from '@nestjs/swagger';
import { DomainRecordDto } from './domain-record.dto';
import {
  APPLICATION_KEY_EXAMPLE,
  CREATE_JSON_EXAMPLE,
  SUBSCRIPTION_KEY_EXAMPLE,
} from './domain-params.dto';

/** The `request` echo of a domains answer, with the example of one method. */
function RequestEcho(example: Record<string, unknown>): PropertyDecorator {
  return ApiProperty({
    description:
      'Echo of the parameters as strings, plus `hostname` (from the path), `method` (new, update, show, list, delete) and `object` (domain).',
    type: 'object',
    additionalProperties: true,
    example: {
      subscription_key: SUBSCRIPTION_KEY_EXAMPLE,
      application_key: APPLICATION_KEY_EXAMPLE,
      ...example,
    },
  });
}

export class DomainBodyDto {
  @ApiProperty({ type: DomainRecordDto })
  domain: DomainRecordDto;
}

export class DomainListBodyDto {
  @ApiProperty({ type: [DomainRecordDto] })
  domains: DomainRecordDto[];
}

export class DomainDeletedBodyDto {
  @ApiProperty({ description: 'Always true.', example: true })
  deleted: true;
}

export class DomainResponseDto {
  @RequestEcho({ json: CREATE_JSON_EXAMPLE, method: 'new', object: 'domain' })
  request: Record<string, unknown>;

  @ApiProperty({ type: DomainBodyDto })
  response: DomainBodyDto;
}

export class DomainListResponseDto {
  @RequestEcho({ method: 'list', object: 'domain' })
  request: Record<string, unknown>;

  @ApiProperty({ type: DomainListBodyDto })
  response: DomainListBodyDto;
}

export class DomainDeletedResponseDto {
  @RequestEcho({ hostname: 'go.example.com', method: 'delete', object: 'domain' })
  request: Record<string, unknown>;

  @ApiProperty({ type: DomainDeletedBodyDto })
  response: DomainDeletedBodyDto;
}
