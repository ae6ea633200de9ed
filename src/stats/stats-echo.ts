import { LinkLookupsService } from '../links/link-lookups.service';
import { ProjectEntity } from '../projects/project.entity';
import { GroupValue } from './figures';
import { StatsQuery } from './stats-query';

/**
 * The filters applied, each with its `<field>_metadata` (an empty array when there are none):
 * null, or with with_metadata=true the link, user or campaign it names (docs/api.md).
 */
export async function filtersEcho(
  lookups: LinkLookupsService,
  projects: ProjectEntity[],
  query: StatsQuery,
): Promise<Record<string, unknown> | []> {
  const entries = Object.entries(query.filters);
  if (entries.length === 0) return [];
  const echo: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    echo[name] = value;
    echo[`${name}_metadata`] = query.withMetadata
      ? await metadataOf(lookups, projects, name, value)
      : null;
  }
  return echo;
}

/**
 * svc_id: original_url, notes; user_id: username, icon_url, profile_url; campaign: name,
 * description.
 */
export async function metadataOf(
  lookups: LinkLookupsService,
  projects: ProjectEntity[],
  field: string,
  value: GroupValue,
): Promise<Record<string, string | null> | null> {
  if (value === null || typeof value !== 'string') return null;
  const ids = projects.map((p) => p.id);
  if (field === 'svc_id') return lookups.linkMetadata(ids, value);
  if (field === 'user_id') return lookups.userMetadata(ids, value);
  if (field === 'campaign') return lookups.campaignMetadata(ids, value);
  return null;
}
