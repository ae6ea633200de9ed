import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { OTHER_PROJECT_KEY_EXAMPLE, PROJECT_KEY_EXAMPLE } from '../../common/dto/request-echo.dto';
import { AdminKeysParams } from '../../common/dto/admin-keys.dto';

/** The domain creation object, sent as the JSON string `json` of domains/new. */
export class DomainCreationObjectDto {
  @ApiProperty({
    description:
      'A registered domain already pointed to the service: no scheme, no path, optionally `:port`; ' +
      'one extra path segment is written `hostname_segment` (links then look like hostname/segment/path). ' +
      'Lowercased. Neither the shared default domain nor a hostname connected elsewhere can be connected.',
    example: 'go.example.com',
  })
  hostname: string;

  @ApiProperty({
    description: 'Absolute http(s) URL: where visits with no path go.',
    example: 'https://www.example.com/',
  })
  root_redirect: string;

  @ApiProperty({
    description: 'Absolute http(s) URL: where visits with an unknown path go.',
    example: 'https://www.example.com/404',
  })
  not_found_redirect: string;

  @ApiPropertyOptional({
    description:
      'API keys of live projects of this subscription to authorise on the domain (a single string is taken as one).',
    type: [String],
    example: [PROJECT_KEY_EXAMPLE],
  })
  projects?: string[];
}

/** The domain update object, sent as the JSON string `json` of domains/{hostname}/update. */
export class DomainUpdateObjectDto {
  @ApiPropertyOptional({
    description: 'New absolute http(s) URL for visits with no path.',
    example: 'https://www.example.com/',
  })
  root_redirect?: string;

  @ApiPropertyOptional({
    description: 'New absolute http(s) URL for visits with an unknown path.',
    example: 'https://www.example.com/missing',
  })
  not_found_redirect?: string;

  @ApiPropertyOptional({
    description:
      'API keys of projects of this subscription to authorise in addition (a single string is taken as one).',
    type: [String],
    example: [PROJECT_KEY_EXAMPLE],
  })
  projects?: string[];

  @ApiPropertyOptional({
    description:
      "API keys of projects whose authorisation is removed. A project whose default_domain is this hostname cannot be removed: change the project's default_domain first.",
    type: [String],
    example: [OTHER_PROJECT_KEY_EXAMPLE],
  })
  remove_projects?: string[];
}

export const CREATE_JSON_EXAMPLE = JSON.stringify({
  hostname: 'go.example.com',
  root_redirect: 'https://www.example.com/',
  not_found_redirect: 'https://www.example.com/404',
  projects: [PROJECT_KEY_EXAMPLE],
});

export const UPDATE_JSON_EXAMPLE = JSON.stringify({
  not_found_redirect: 'https://www.example.com/missing',
  projects: [PROJECT_KEY_EXAMPLE],
  remove_projects: [OTHER_PROJECT_KEY_EXAMPLE],
});

/** subscription_key and application_key: required on every domain operation. */
export class DomainKeysParamsDto extends AdminKeysParams('domains') {}

export class CreateDomainParamsDto extends DomainKeysParamsDto {
  @ApiProperty({
    description:
      'JSON string: the domain creation object {hostname, root_redirect, not_found_redirect, projects} ' +
      '(schema DomainCreationObjectDto). Unknown fields are refused.',
    example: CREATE_JSON_EXAMPLE,
  })
  json: string;
}

export class UpdateDomainParamsDto extends DomainKeysParamsDto {
  @ApiProperty({
    description:
      'JSON string: the domain update object with only what changes {root_redirect, not_found_redirect, ' +
      'projects (added), remove_projects} (schema DomainUpdateObjectDto). Unknown fields are refused.',
    example: UPDATE_JSON_EXAMPLE,
  })
  json: string;
}
