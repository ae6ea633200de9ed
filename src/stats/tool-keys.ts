import { LinkLookupsService } from '../links/link-lookups.service';
import { StatsQuery } from './stats-query';

/** The keys of the tools whose label is the tool filter (none without one). */
export async function toolKeys(
  lookups: LinkLookupsService,
  projectIds: string[],
  query: Pick<StatsQuery, 'filters'>,
): Promise<string[]> {
  const label = query.filters.tool;
  return label === undefined ? [] : lookups.toolKeysByLabel(projectIds, label);
}
