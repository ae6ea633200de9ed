import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';

/** The conversions object of project creation and update (docs/api.md, "Administration"). */
export class ConversionsSettingsDto {
  @ApiPropertyOptional()
  enabled?: boolean;
  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    description:
      'Hostnames where conversions are tracked, or "all" for every redirection; added on update',
    example: ['shop.example.com'],
  })
  domains?: string | string[];
  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    description: 'Update only: hostnames to stop tracking',
  })
  remove_domain?: string | string[];
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 256, example: 'Signup' })
  goal_1_label?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 256, example: 'Purchase' })
  goal_2_label?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 256 }) goal_3_label?:
    string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 256 }) goal_4_label?:
    string | null;
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 256 }) goal_5_label?:
    string | null;
}

export const ROLES = ['admin', 'sharer', 'viewer'] as const;

export class ChangeRoleDto {
  @ApiProperty({ description: 'E-mail, sharer_id or username', example: 'ann@example.com' })
  user: string;
  @ApiProperty({ enum: ROLES, enumName: 'ProjectRole' })
  role: (typeof ROLES)[number];
}

/** publishable_hosts, in the creation and update objects alike (docs/api.md, "Keys"). */
const PUBLISHABLE_HOSTS: ApiPropertyOptions = {
  type: [String],
  example: ['example.com', 'twitter.com'],
  description:
    'Extension. Hosts, each with its subdomains, that links made with the publishable key may lead to and its retweet and share destinations may redirect to (at most 100); none: the publishable key makes no links. On update the list given replaces the current one',
};

/** ip_storage and ua_storage, in the creation and update objects alike (docs/api.md, "Addresses"). */
const IP_STORAGE: ApiPropertyOptions = {
  type: String,
  enum: ['full', 'anonymised', 'none'],
  nullable: true,
  example: 'anonymised',
  description:
    "Extension. How the project keeps its visitors' IP addresses in its clicks and conversion records: full, anonymised (IPv4 /24, IPv6 /48) or none; null: as when never set (clicks as the instance's CLICK_IP, conversion records the address given)",
};
const RETENTION_DAYS: ApiPropertyOptions = {
  type: Number,
  minimum: 1,
  maximum: 36500,
  nullable: true,
  example: 395,
  description:
    'Extension. How many days the project keeps its raw clicks and conversions (1 to 36500); older events are kept as hourly rollups only (docs/api.md, "Retention"); null: the instance\'s RETENTION_DAYS (unset: forever)',
};
const UA_STORAGE: ApiPropertyOptions = {
  enum: ['full', 'parsed'],
  example: 'parsed',
  description:
    "Extension. How the project keeps its visitors' user agents: full, or parsed (only the browser, OS and device a click was described with)",
};

/** The project creation object, sent as the JSON string `json` of projects/new. */
export class ProjectCreationObjectDto {
  @ApiProperty({
    description: 'Unique; a-z, A-Z, 0-9, _ and -',
    example: 'acme-blog',
    pattern: '^[A-Za-z0-9_-]+$',
  })
  name: string;
  @ApiPropertyOptional({ type: ConversionsSettingsDto })
  conversions?: ConversionsSettingsDto;
  @ApiPropertyOptional({ type: [String], description: 'Domains connected to the subscription' })
  domains?: string[];
  @ApiPropertyOptional({ description: 'One of the authorised domains' })
  default_domain?: string;
  @ApiPropertyOptional({
    type: [String],
    description: 'E-mail, sharer_id or username; new users by e-mail',
  })
  admins?: string[];
  @ApiPropertyOptional({ type: [String] })
  sharers?: string[];
  @ApiPropertyOptional({ type: [String] })
  viewers?: string[];
  @ApiPropertyOptional(PUBLISHABLE_HOSTS)
  publishable_hosts?: string[];
  @ApiPropertyOptional(IP_STORAGE)
  ip_storage?: 'full' | 'anonymised' | 'none' | null;
  @ApiPropertyOptional(UA_STORAGE)
  ua_storage?: 'full' | 'parsed';
  @ApiPropertyOptional(RETENTION_DAYS)
  retention_days?: number | null;
}

/** The project update object (only what changes), sent as the JSON string `json` of projects/{api_key}/update. */
export class ProjectUpdateObjectDto {
  @ApiPropertyOptional({ pattern: '^[A-Za-z0-9_-]+$' })
  name?: string;
  @ApiPropertyOptional({ type: ConversionsSettingsDto })
  conversions?: ConversionsSettingsDto;
  @ApiPropertyOptional({ type: [String], description: 'Domains to add' })
  domains?: string[];
  @ApiPropertyOptional({ type: [String] })
  remove_domain?: string[];
  @ApiPropertyOptional()
  default_domain?: string;
  @ApiPropertyOptional({
    type: [String],
    description: 'Users to add (or whose role becomes admin)',
  })
  admins?: string[];
  @ApiPropertyOptional({ type: [String] })
  sharers?: string[];
  @ApiPropertyOptional({ type: [String] })
  viewers?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Users to remove from the project' })
  remove_user?: string[];
  @ApiPropertyOptional({ type: [ChangeRoleDto] })
  change_role?: ChangeRoleDto[];
  @ApiPropertyOptional({
    type: Boolean,
    description:
      'Extension. true replaces the publishable key; the old one is refused at once (a JSON boolean only)',
  })
  rotate_publishable_key?: boolean;
  @ApiPropertyOptional(PUBLISHABLE_HOSTS)
  publishable_hosts?: string[];
  @ApiPropertyOptional(IP_STORAGE)
  ip_storage?: 'full' | 'anonymised' | 'none' | null;
  @ApiPropertyOptional(UA_STORAGE)
  ua_storage?: 'full' | 'parsed';
  @ApiPropertyOptional(RETENTION_DAYS)
  retention_days?: number | null;
}
