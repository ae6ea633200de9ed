import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Post information of a shared link. */
export class PostMetadataDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Followers or fans of the sharer at share time',
  })
  reach: number | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-20T09:30:00Z' })
  shared_at: string | null;
}

export class CampaignMetadataDto {
  @ApiProperty({ type: String, nullable: true })
  description: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Spring Sale' })
  name: string | null;
}

export class UserIdMetadataDto {
  @ApiProperty({ type: String, nullable: true })
  icon_url: string | null;
  @ApiProperty({ type: String, nullable: true })
  username: string | null;
  @ApiProperty({ type: String, nullable: true })
  profile_url: string | null;
}

/** The link record (docs/api.md, "Tracked links"): every field present, null when unset. */
export class LinkRecordDto {
  @ApiProperty({ example: 'http://localhost:3000/aB3dE9x' })
  svc_url: string;
  @ApiProperty({ example: 'localhost:3000_aB3dE9x' })
  svc_id: string;
  @ApiProperty({ example: 'localhost:3000' })
  domain: string;
  @ApiProperty({ example: 'aB3dE9x' })
  path: string;
  @ApiProperty({ example: '2026-11-20T09:30:00Z' })
  created_at: string;
  @ApiProperty({ example: 'https://example.com/article' })
  redirect_url: string;
  @ApiProperty({ example: 'https://example.com/article' })
  original_url: string;
  @ApiProperty({ type: String, nullable: true, example: 'twitter' })
  channel: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'twitter' })
  service: string | null;
  @ApiProperty({ example: 'publisher-sharebar' })
  tool: string;
  @ApiProperty({ example: 'publisher' })
  application: string;
  @ApiProperty({ type: String, nullable: true })
  parent: string | null;
  @ApiProperty({ type: String, nullable: true })
  sharer_id: string | null;
  @ApiProperty({ type: String, nullable: true })
  username: string | null;
  @ApiProperty({ type: String, nullable: true })
  service_userid: string | null;
  @ApiProperty({ type: String, nullable: true })
  service_postid: string | null;
  @ApiProperty({ type: PostMetadataDto })
  service_postid_metadata: PostMetadataDto;
  @ApiProperty({ type: String, nullable: true, example: 'spring-sale' })
  campaign: string | null;
  @ApiProperty({ type: CampaignMetadataDto })
  campaign_metadata: CampaignMetadataDto;
  @ApiProperty({ type: String, nullable: true })
  user_id: string | null;
  @ApiProperty({ type: UserIdMetadataDto })
  user_id_metadata: UserIdMetadataDto;
  @ApiProperty({ type: String, nullable: true })
  tag: string | null;
  @ApiProperty({ type: String, nullable: true })
  notes: string | null;
  @ApiPropertyOptional({
    description: 'Link control, only when set: when the link expires (ISO 8601, UTC)',
    example: '2026-12-31T23:59:59Z',
  })
  expires_at?: string;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'Link control, only when set: counted human clicks after which the link expires',
    example: 1000,
  })
  max_clicks?: number;
  @ApiPropertyOptional({
    description: 'Link control, only when set: where visitors go once the link has expired',
    example: 'https://example.com/offer-ended',
  })
  expired_url?: string;
  @ApiPropertyOptional({
    enum: [true],
    description: 'Link control, only when set: the link answers as not found',
  })
  disabled?: true;
  @ApiPropertyOptional({
    description: 'Link control, only when set: the target for iPhone, iPad and iPod visitors',
    example: 'https://apps.apple.com/app/id123456789',
  })
  ios_url?: string;
  @ApiPropertyOptional({
    description: 'Link control, only when set: the target for Android visitors',
    example: 'https://play.google.com/store/apps/details?id=com.example',
  })
  android_url?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'Link control, only when set: the target per visitor country (ISO 3166-1 alpha-2 → URL)',
    example: { US: 'https://example.com/us', DE: 'https://example.com/de' },
  })
  geo?: Record<string, string>;
  @ApiPropertyOptional({
    enum: [true],
    description: 'Link control, only when set: visitors must give the link’s password',
  })
  password_protected?: true;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description:
      'Extension, only on an imported link whose file gave a count: the clicks the shortener it came from had counted (never click rows; statistics leave them out)',
    example: 1520,
  })
  imported_clicks?: number;
  @ApiPropertyOptional({
    description: 'Static endpoint only: whether the link was created by this call',
  })
  new?: boolean;
  @ApiPropertyOptional({ description: 'Update endpoint only', example: '2026-11-21T10:00:00Z' })
  updated_at?: string;
}

/** url/batch.json: one link record per array element. */
export class LinkBatchResponseDto {
  @ApiProperty({ type: [LinkRecordDto] })
  svc_urls: LinkRecordDto[];
}

/** url/retweet.json. */
export class RetweetResponseDto {
  @ApiProperty({ example: 'Read this http://localhost:3000/aB3dE9x' })
  svc_text: string;
  @ApiProperty({ type: [LinkRecordDto] })
  svc_urls: LinkRecordDto[];
}
