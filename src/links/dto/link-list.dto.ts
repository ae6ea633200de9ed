import { ApiProperty, OmitType } from '@nestjs/swagger';
import { LinkRecordDto } from './link-record.dto';

/** A listed link: the link record (without static's `new` and update's `updated_at`) and its clicks. */
export class LinkListItemDto extends OmitType(LinkRecordDto, ['new', 'updated_at'] as const) {
  @ApiProperty({
    type: 'integer',
    description: 'All-time clicks of the link (known crawlers left out)',
    example: 42,
  })
  clicks: number;
}

/** url/list.{format} (extension; docs/api.md, "Listing links"). */
export class LinkListResponseDto {
  @ApiProperty({ type: [LinkListItemDto] })
  links: LinkListItemDto[];
  @ApiProperty({
    type: 'integer',
    description: 'The links that pass the filters and the search, over every page',
  })
  total_results: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'The page asked for (1 by default); null when offset was given, which overrides it',
  })
  page: number | null;
  @ApiProperty({ type: 'integer' })
  per_page: number;
  @ApiProperty({ type: 'integer' })
  offset: number;
  @ApiProperty({
    type: 'integer',
    description: 'offset plus the links of this page: the offset of the next page',
  })
  last_offset: number;
}
