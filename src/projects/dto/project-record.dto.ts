import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ELIDED_KEY_EXAMPLES, RequestEcho } from '../../common/dto/request-echo.dto';
import { adminTimestamp } from '../../common/time';
import { LISTED_GOALS } from '../project-input';
import type { ProjectRole } from '../project-user.entity';
import type { ProjectDetails } from '../projects.service';

/** A project user. */
export class UserRecordDto {
  /** Name of the user's default project. */
  @ApiProperty({ example: 'acme-blog' })
  default_project: string;

  /** E-mail address (stored lowercase). */
  @ApiProperty({ example: 'ann@example.com' })
  email: string;

  /** Display name. */
  @ApiProperty({ example: 'ann' })
  name: string;

  /** The user's id, a UUID; may be used to name the user in admins, sharers, viewers. */
  @ApiProperty({ example: '5f0c6c1e-3d4b-4a51-9b7e-2f1d8c9a0b12' })
  sharer_id: string;

  /** Unique username, derived from the e-mail address when the user was invited. */
  @ApiProperty({ example: 'ann' })
  username: string;
}

/**
 * Conversion settings. goal_1_label … goal_10_label are all present (null when unset); goals 1–5
 * are recorded and labelled through the update object.
 */
export class ConversionsRecordDto {
  /** Whether redirects add svc=<svc_id> to landing URLs for conversion tracking. */
  @ApiProperty({ example: true })
  enabled: boolean;

  /** 'all' (every redirection) or the landing-page hostnames where conversions are tracked. */
  @ApiProperty({
    oneOf: [
      { type: 'string', enum: ['all'] },
      { type: 'array', items: { type: 'string' } },
    ],
    example: ['shop.example.com'],
  })
  domains: 'all' | string[];

  [label: `goal_${number}_label`]: string | null;
}
for (const n of LISTED_GOALS) {
  ApiProperty({
    type: String,
    nullable: true,
    description: `Display name of goal ${n}${n > 5 ? ' (listing only)' : ''}`,
    example: n === 1 ? 'Signup' : null,
  })(ConversionsRecordDto.prototype, `goal_${n}_label`);
}

/** The project record. */
export class ProjectRecordDto {
  /** Globally unique among live projects; a-z, A-Z, 0-9, underscore, hyphen. */
  @ApiProperty({ example: 'acme-blog' })
  name: string;

  /** The project API key: `key` of the link, stats and conversion endpoints. */
  @ApiProperty({ example: '3f9a0c2b7d4e4f1a8b6c5d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a' })
  api_key: string;

  /**
   * **Extension.** The publishable key: `pk_` and 32 lowercase hex characters, the tracking
   * script's `data-key`. It may record conversions and create links through retweet and share
   * (never with link controls), nothing else; not a secret. Replaced by the update object's
   * `rotate_publishable_key` (docs/api.md, "Keys").
   */
  @ApiProperty({ example: 'pk_7dc42788a8dd6b7dbe71bd676b026104', pattern: '^pk_[0-9a-f]{32}$' })
  publishable_key: string;

  /** YYYY-MM-DD HH:MM:SS, UTC. */
  @ApiProperty({ example: '2026-11-23 08:30:00' })
  created_at: string;

  /** YYYY-MM-DD HH:MM:SS, UTC. */
  @ApiProperty({ example: '2026-11-23 08:30:00' })
  updated_at: string;

  /** Domain of the project's new links: the shared default domain unless changed. */
  @ApiProperty({ example: 'svc.example' })
  default_domain: string;

  /** Connected domains the project may create links on (the shared default domain is implied). */
  @ApiProperty({ type: [String], example: ['go.acme.com'] })
  domains: string[];

  @ApiProperty({ type: [UserRecordDto] })
  admins: UserRecordDto[];

  @ApiProperty({ type: [UserRecordDto] })
  sharers: UserRecordDto[];

  @ApiProperty({ type: [UserRecordDto] })
  viewers: UserRecordDto[];

  /** Present in show and list; absent in the answers to new and update (docs/api.md, "Administration"). */
  @ApiPropertyOptional({ type: ConversionsRecordDto })
  conversions?: ConversionsRecordDto;

  /** Show and list: original-URL hostname → redirection pattern. */
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: {
      'shop.example.com': 'https://shop.example.com/r?to=%escaped_original_url%&by=%user_id%',
    },
  })
  redirection_patterns?: Record<string, string>;

  /** Show and list: whether redirect URLs get the UTM parameters. */
  @ApiPropertyOptional({ example: false })
  utm_parameters?: boolean;

  /**
   * Show and list (**extension**): the hosts, each with its subdomains, that links made with the
   * publishable key may lead to and its retweet and share destinations may redirect to; empty:
   * the publishable key makes no links (docs/api.md, "Keys").
   */
  @ApiPropertyOptional({ type: [String], example: ['example.com', 'twitter.com'] })
  publishable_hosts?: string[];

  /**
   * Show and list (**extension**): how the project stores its visitors' IP addresses in every copy
   * of its clicks and conversions: `full`, `anonymised` (IPv4 /24, IPv6 /48) or `none`; null when
   * never set: clicks then follow the instance's `CLICK_IP` and conversion records keep the
   * address given (docs/api.md, "Addresses").
   */
  @ApiPropertyOptional({
    type: String,
    enum: ['full', 'anonymised', 'none'],
    nullable: true,
    example: 'anonymised',
  })
  ip_storage?: 'full' | 'anonymised' | 'none' | null;

  /**
   * Show and list (**extension**): how the project stores its visitors' user agents: `full`, or
   * `parsed`: no user agent string, only the browser, OS and device a click was described with.
   */
  @ApiPropertyOptional({ enum: ['full', 'parsed'], example: 'full' })
  ua_storage?: 'full' | 'parsed';

  /**
   * Show and list (**extension**): how many days the project keeps its raw clicks and
   * conversions; older events are kept as hourly rollups only; null when never set: the
   * instance's `RETENTION_DAYS` (unset: forever) (docs/api.md, "Retention").
   */
  @ApiPropertyOptional({ type: Number, nullable: true, example: 395 })
  retention_days?: number | null;
}

export function toConversionsRecord(details: ProjectDetails): ConversionsRecordDto {
  const { project } = details;
  const record: ConversionsRecordDto = {
    enabled: project.conversionsEnabled,
    domains: project.conversionDomains === 'all' ? 'all' : [...project.conversionDomains],
  };
  for (const n of LISTED_GOALS) record[`goal_${n}_label`] = project.goalLabels[`goal_${n}`] ?? null;
  return record;
}

export function toProjectRecord(
  details: ProjectDetails,
  withConversions: boolean,
): ProjectRecordDto {
  const { project, members } = details;
  const byRole = (role: ProjectRole): UserRecordDto[] =>
    members
      .filter((member) => member.role === role)
      .map((member) => ({
        default_project: member.defaultProject ?? project.name,
        email: member.email,
        name: member.name,
        sharer_id: member.userId,
        username: member.username,
      }));
  const record: ProjectRecordDto = {
    name: project.name,
    api_key: project.apiKey,
    publishable_key: project.publishableKey,
    created_at: adminTimestamp(project.createdAt),
    updated_at: adminTimestamp(project.updatedAt),
    default_domain: project.defaultDomain,
    domains: details.domains.map((domain) => domain.hostname),
    admins: byRole('admin'),
    sharers: byRole('sharer'),
    viewers: byRole('viewer'),
  };
  if (withConversions) {
    record.conversions = toConversionsRecord(details);
    record.redirection_patterns = { ...(project.settings.redirection_patterns ?? {}) };
    record.utm_parameters = project.settings.utm_parameters ?? false;
    record.publishable_hosts = [...(project.settings.publishable_hosts ?? [])];
    record.ip_storage = project.ipStorage;
    record.ua_storage = project.uaStorage;
    record.retention_days = project.retentionDays;
  }
  return record;
}

export class ProjectBodyDto {
  @ApiProperty({ type: ProjectRecordDto })
  project: ProjectRecordDto;
}

export class ProjectResponseDto {
  /** Every parameter given, as a string, plus apikey (from the path), method and object. */
  @RequestEcho(ELIDED_KEY_EXAMPLES, {
    json: '{"name":"acme-blog"}',
    method: 'new',
    object: 'project',
  })
  request: Record<string, unknown>;

  @ApiProperty({ type: ProjectBodyDto })
  response: ProjectBodyDto;
}

export class ProjectListBodyDto {
  @ApiProperty({ type: [ProjectRecordDto] })
  projects: ProjectRecordDto[];
}

export class ProjectListResponseDto {
  @RequestEcho(ELIDED_KEY_EXAMPLES, { method: 'list', object: 'project' })
  request: Record<string, unknown>;

  @ApiProperty({ type: ProjectListBodyDto })
  response: ProjectListBodyDto;
}

export class ProjectDeletedBodyDto {
  @ApiProperty({ example: true })
  deleted: true;
}

export class ProjectDeletedResponseDto {
  @RequestEcho(ELIDED_KEY_EXAMPLES, { method: 'delete', object: 'project', apikey: '3f9a…' })
  request: Record<string, unknown>;

  @ApiProperty({ type: ProjectDeletedBodyDto })
  response: ProjectDeletedBodyDto;
}
