import { isLinkField, isMultiTagField, isSharedAtField, SharedAtField } from './link-filters';

/**
 * The shared_at_* fields over the links mirror's `shared_at` (UTC), as the link list filters by
 * them and statistics filter, group and pivot by them: ISO weeks, Monday is day 0, hour 0 of the
 * week is Monday midnight to 1 AM.
 */
export const SHARED_AT_EXPRESSIONS: Record<SharedAtField, string> = {
  shared_at_hour_of_day: 'toUInt16(toHour(shared_at))',
  shared_at_day_of_week: 'toUInt16(toDayOfWeek(shared_at) - 1)',
  shared_at_hour_of_week: 'toUInt16((toDayOfWeek(shared_at) - 1) * 24 + toHour(shared_at))',
};

/**
 * ClickHouse conditions for the link filters (link-filters.ts) over the analytics store's mirror of
 * links (`links`), or over the stamps of clicks and conversions (the same column names), each value
 * bound through `bind`: equality, a tool by its key or by a key whose label it is (`toolKeys`, looked
 * up in PostgreSQL), shared_at_* by their value, a multi-value tag when the value is one of the
 * link's. Names that are not link filters (statistics' click dimensions) are left to the caller.
 * The link list and statistics filter links so, alike (docs/api.md, "Listing links").
 */
export function linkFilterConditions(
  filters: Partial<Record<string, string>>,
  bind: (value: unknown, type: string) => string,
  toolKeys: string[] = [],
): string[] {
  const conditions: string[] = [];
  for (const [name, value] of Object.entries(filters)) {
    if (name === 'tool') {
      conditions.push(
        `(tool = ${bind(value, 'String')} OR tool IN ${bind(toolKeys, 'Array(String)')})`,
      );
    } else if (isLinkField(name)) {
      conditions.push(`${name} = ${bind(value, 'String')}`);
    } else if (isSharedAtField(name)) {
      conditions.push(`${SHARED_AT_EXPRESSIONS[name]} = ${bind(Number(value), 'UInt16')}`);
    } else if (isMultiTagField(name)) {
      conditions.push(`has(${name}, ${bind(value, 'String')})`);
    }
  }
  return conditions;
}
