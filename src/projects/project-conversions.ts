import { Errors } from '../common/app-error';
import type { ConversionsInput } from './project-input';
import type { ConversionDomains, GoalLabels, ProjectEntity } from './project.entity';
import type { ProjectChanges } from './projects.repository';

/**
 * The conversion columns after applying the conversions object to the project (null: a new one):
 * `domains` adds hostnames, `"all"` replaces the list, `remove_domain` removes, a null goal label
 * clears it (docs/api.md, "Administration").
 */
export function applyConversions(
  project: ProjectEntity | null,
  input: ConversionsInput | null,
): ProjectChanges {
  const changes: ProjectChanges = project
    ? {}
    : { conversionsEnabled: false, conversionDomains: [], goalLabels: {} };
  if (!input) return changes;
  if (input.enabled !== undefined) changes.conversionsEnabled = input.enabled;
  let domains: ConversionDomains = project ? project.conversionDomains : [];
  for (const { value: host, parameter } of input.removeDomains) {
    if (host === 'all') {
      if (domains === 'all') domains = [];
      continue;
    }
    if (domains === 'all') {
      throw Errors.invalid(
        parameter,
        `conversions are tracked on all domains; remove "all" to list hostnames`,
      );
    }
    if (!domains.includes(host))
      throw Errors.invalid(parameter, `${host} is not a conversions domain of this project`);
    domains = domains.filter((existing) => existing !== host);
  }
  if (input.domains === 'all') {
    domains = 'all';
  } else if (input.domains && domains !== 'all') {
    const list: string[] = domains;
    domains = [...list, ...input.domains.filter((host) => !list.includes(host))];
  }
  if (project === null || input.removeDomains.length > 0 || input.domains !== undefined) {
    changes.conversionDomains = domains;
  }
  if (Object.keys(input.goalLabels).length > 0 || project === null) {
    const labels: GoalLabels = { ...(project?.goalLabels ?? {}) };
    for (const [goal, label] of Object.entries(input.goalLabels)) {
      if (label === null) delete labels[goal];
      else labels[goal] = label;
    }
    changes.goalLabels = labels;
  }
  return changes;
}
