import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { PREFIXED_KEY_EXAMPLES } from '../../common/dto/request-echo.dto';

/** Example project creation object (docs/api.md, "Administration"). */
export const CREATE_EXAMPLE = {
  name: 'acme-blog',
  domains: ['go.acme.com'],
  default_domain: 'go.acme.com',
  admins: ['ann@example.com'],
  sharers: 'bob@example.com',
  conversions: { enabled: true, domains: ['shop.acme.com'], goal_1_label: 'Signup' },
};

/** Example project update object: only what changes. */
export const UPDATE_EXAMPLE = {
  name: 'acme-blog-2',
  domains: ['links.acme.com'],
  remove_domain: ['go.acme.com'],
  default_domain: 'links.acme.com',
  viewers: ['carol@example.com'],
  remove_user: ['bob'],
  change_role: [{ user: 'ann@example.com', role: 'sharer' }],
  conversions: { domains: 'all', goal_2_label: 'Purchase', goal_1_label: null },
};

export const SUBSCRIPTION_KEY_DOC = {
  description: 'Key of the subscription that owns the projects.',
  example: PREFIXED_KEY_EXAMPLES.subscription,
};
export const APPLICATION_KEY_DOC = {
  description: 'Key of an application authorised to administer the subscription.',
  example: PREFIXED_KEY_EXAMPLES.application,
};

/** subscription_key and application_key, both required (show, list, destroy). */
export class ProjectKeysParamsDto {
  /** Key of the subscription that owns the projects. */
  @ApiProperty({ ...SUBSCRIPTION_KEY_DOC, required: true })
  @IsOptional()
  @IsString()
  subscription_key?: string;

  /** Key of an application authorised to administer the subscription. */
  @ApiProperty({ ...APPLICATION_KEY_DOC, required: true })
  @IsOptional()
  @IsString()
  application_key?: string;
}

/** subscription_key required; application_key optional but checked when given (new, update). */
export class ProjectWriteKeysParamsDto {
  /** Key of the subscription that owns (or will own) the project. */
  @ApiProperty({ ...SUBSCRIPTION_KEY_DOC, required: true })
  @IsOptional()
  @IsString()
  subscription_key?: string;

  /** Optional; when given, it must be an application authorised on the subscription. */
  @ApiPropertyOptional(APPLICATION_KEY_DOC)
  @IsOptional()
  @IsString()
  application_key?: string;
}

/** new: subscription_key, json; application_key optional but checked when given. */
export class CreateProjectParamsDto extends ProjectWriteKeysParamsDto {
  /**
   * The project creation object as a JSON string: name (required; a-z A-Z 0-9 _ -, unique),
   * domains (connected to this subscription), default_domain, admins/sharers/viewers (e-mail,
   * sharer_id or username; new users by e-mail get a welcome e-mail), conversions {enabled,
   * domains, goal_1_label … goal_5_label}.
   */
  @ApiProperty({
    type: String,
    required: true,
    description:
      'Project creation object (schema ProjectCreationObjectDto) as a JSON string: name (required), domains, default_domain, admins, sharers, viewers, conversions.',
    example: JSON.stringify(CREATE_EXAMPLE),
  })
  @IsOptional()
  json?: unknown;
}

/** update: subscription_key, json; application_key optional but checked when given. */
export class UpdateProjectParamsDto extends ProjectWriteKeysParamsDto {
  /**
   * The project update object as a JSON string, only what changes: name, domains (added),
   * remove_domain, default_domain, admins/sharers/viewers (added, or role changed), remove_user,
   * change_role [{user, role}], conversions {enabled, domains (added; 'all' for every redirection),
   * remove_domain, goal_1_label … goal_5_label (null clears)}, rotate_publishable_key (true
   * replaces the publishable key), publishable_hosts (replaces the list).
   */
  @ApiProperty({
    type: String,
    required: true,
    description:
      'Project update object (schema ProjectUpdateObjectDto) as a JSON string (only what changes): name, domains, remove_domain, default_domain, admins, sharers, viewers, remove_user, change_role, conversions; extension: rotate_publishable_key (true replaces the publishable key), publishable_hosts (the hosts the publishable key may make links to; replaces the list).',
    example: JSON.stringify(UPDATE_EXAMPLE),
  })
  @IsOptional()
  json?: unknown;
}
