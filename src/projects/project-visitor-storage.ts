import { Errors } from '../common/app-error';
import type { IpMode } from '../common/ip';
import {
  IP_MODES,
  USER_AGENT_MODES,
  UserAgentMode,
  VisitorStorage,
} from '../common/visitor-storage';
import type { ProjectEntity } from './project.entity';

/** The fields of the project objects that set how much of a visitor the project keeps. */
export const VISITOR_STORAGE_FIELDS = ['ip_storage', 'ua_storage'];

/**
 * `ip_storage` and `ua_storage` as given (docs/api.md, "Addresses"): absent fields stay as they
 * are; `ip_storage: null` returns the project to the instance's CLICK_IP.
 */
export interface VisitorStorageInput {
  ipStorage?: IpMode | null;
  uaStorage?: UserAgentMode;
}

/** The two fields of a project creation or update object; a bad value is a 400 naming its field. */
export function parseVisitorStorage(json: Record<string, unknown>): VisitorStorageInput {
  const input: VisitorStorageInput = {};
  const ip = json.ip_storage;
  if (ip !== undefined) {
    if (ip !== null && !(IP_MODES as readonly unknown[]).includes(ip)) {
      throw Errors.invalid(
        'json.ip_storage',
        `must be one of ${IP_MODES.join(', ')}, or null for the instance's default`,
      );
    }
    input.ipStorage = ip as IpMode | null;
  }
  const ua = json.ua_storage;
  if (ua !== undefined) {
    if (!(USER_AGENT_MODES as readonly unknown[]).includes(ua)) {
      throw Errors.invalid('json.ua_storage', `must be one of ${USER_AGENT_MODES.join(', ')}`);
    }
    input.uaStorage = ua as UserAgentMode;
  }
  return input;
}

/** The project's columns the input changes (none when it gives neither field). */
export function visitorStorageChanges(
  input: VisitorStorageInput,
): Partial<Pick<ProjectEntity, 'ipStorage' | 'uaStorage'>> {
  return {
    ...(input.ipStorage !== undefined ? { ipStorage: input.ipStorage } : {}),
    ...(input.uaStorage !== undefined ? { uaStorage: input.uaStorage } : {}),
  };
}

/**
 * How much of a visitor the project keeps in one copy: its settings; a project that never set
 * `ip_storage` keeps the address as that copy always did (`unset`: CLICK_IP for clicks, `full` for
 * conversion records), so that nothing changes for it (docs/api.md, "Addresses").
 */
export function visitorStorage(
  project: Pick<ProjectEntity, 'ipStorage' | 'uaStorage'>,
  unset: IpMode,
): VisitorStorage {
  return { ip: project.ipStorage ?? unset, userAgent: project.uaStorage ?? 'full' };
}
