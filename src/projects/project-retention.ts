import { Errors } from '../common/app-error';
import type { ProjectEntity } from './project.entity';

/** The most days a project may keep its raw events (100 years). */
export const MAX_RETENTION_DAYS = 36_500;

/** The field of the project objects that sets how long the project keeps its raw events. */
export const RETENTION_FIELDS = ['retention_days'];

/**
 * `retention_days` as given (docs/api.md, "Retention"): absent, it stays as it is; null returns
 * the project to the instance's RETENTION_DAYS.
 */
export interface RetentionInput {
  retentionDays?: number | null;
}

/** The field of a project creation or update object; a bad value is a 400 naming it. */
export function parseRetention(json: Record<string, unknown>): RetentionInput {
  const days = json.retention_days;
  if (days === undefined) return {};
  if (
    days !== null &&
    (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)
  ) {
    throw Errors.invalid(
      'json.retention_days',
      `must be an integer from 1 to ${MAX_RETENTION_DAYS} (days), or null for the instance's default`,
    );
  }
  return { retentionDays: days };
}

/** The project's column the input changes (none when the field is absent). */
export function retentionChanges(
  input: RetentionInput,
): Partial<Pick<ProjectEntity, 'retentionDays'>> {
  return input.retentionDays !== undefined ? { retentionDays: input.retentionDays } : {};
}

/**
 * How many days the project keeps its raw events: its own setting, else the instance's
 * RETENTION_DAYS; null: forever.
 */
export function effectiveRetentionDays(
  project: Pick<ProjectEntity, 'retentionDays'>,
  instanceDays: number | null,
): number | null {
  return project.retentionDays ?? instanceDays;
}
