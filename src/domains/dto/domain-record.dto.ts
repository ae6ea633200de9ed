import { ApiProperty } from '@nestjs/swagger';
import { adminTimestamp } from '../../common/time';
import { DomainEntity } from '../../connected-domains/domain.entity';

/** The domain record. */
export class DomainRecordDto {
  @ApiProperty({
    description:
      'Hostname without scheme, optionally `:port`; `hostname_segment` for links of the form hostname/segment/path.',
    example: 'go.example.com',
  })
  hostname: string;

  @ApiProperty({
    description: 'Where visits to the domain with no path go.',
    example: 'https://www.example.com/',
  })
  root_redirect: string;

  @ApiProperty({
    description: 'Where visits with an unknown path go.',
    example: 'https://www.example.com/404',
  })
  not_found_redirect: string;

  @ApiProperty({
    description: 'Names of the live projects authorised to create links on this domain, by name.',
    type: [String],
    example: ['blog', 'shop'],
  })
  projects: string[];

  @ApiProperty({
    description: 'Connection time, `YYYY-MM-DD HH:MM:SS` UTC.',
    example: '2025-11-23 09:30:00',
  })
  created_at: string;

  @ApiProperty({
    description: 'Last change, `YYYY-MM-DD HH:MM:SS` UTC.',
    example: '2025-11-24 16:05:12',
  })
  updated_at: string;
}

export function toDomainRecord(domain: DomainEntity, projects: string[]): DomainRecordDto {
  return {
    hostname: domain.hostname,
    root_redirect: domain.rootRedirect,
    not_found_redirect: domain.notFoundRedirect,
    projects,
    created_at: adminTimestamp(domain.createdAt),
    updated_at: adminTimestamp(domain.updatedAt),
  };
}
