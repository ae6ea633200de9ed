import { ApiProperty } from '@nestjs/swagger';
import { ADMIN_KEY_EXAMPLES, RequestEcho } from '../../common/dto/request-echo.dto';
import { DomainRecordDto } from './domain-record.dto';
import { CREATE_JSON_EXAMPLE } from './domain-params.dto';

/** The `request` echo of a domains answer, with the example of one method. */
const DomainEcho = (example: Record<string, unknown>): PropertyDecorator =>
  RequestEcho(
    ADMIN_KEY_EXAMPLES,
    example,
    'Echo of the parameters as strings, plus `hostname` (from the path), `method` (new, update, show, list, delete) and `object` (domain).',
  );

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
  @DomainEcho({ json: CREATE_JSON_EXAMPLE, method: 'new', object: 'domain' })
  request: Record<string, unknown>;

  @ApiProperty({ type: DomainBodyDto })
  response: DomainBodyDto;
}

export class DomainListResponseDto {
  @DomainEcho({ method: 'list', object: 'domain' })
  request: Record<string, unknown>;

  @ApiProperty({ type: DomainListBodyDto })
  response: DomainListBodyDto;
}

export class DomainDeletedResponseDto {
  @DomainEcho({ hostname: 'go.example.com', method: 'delete', object: 'domain' })
  request: Record<string, unknown>;

  @ApiProperty({ type: DomainDeletedBodyDto })
  response: DomainDeletedBodyDto;
}
