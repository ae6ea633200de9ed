import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Errors } from '../common/app-error';
import { ProjectLookupsService } from '../projects/project-lookups.service';
import { ProjectEntity } from '../projects/project.entity';
import { svcIdOfUrl } from './link-path';
import { LinksRepository } from './links.repository';

/**
 * A link's parent (docs/api.md, "Tracked links": parent): the `parent` given, which must be a link
 * of the project; without it, a `url` that is itself one of the project's links, or carries
 * `svc=<svc_id>` of one.
 */
@Injectable()
export class LinkParentsService {
  constructor(
    private readonly repository: LinksRepository,
    private readonly projects: ProjectLookupsService,
  ) {}

  /** The svc_id of `parent`, a link of the project; 400 naming `parent` otherwise. */
  async explicit(project: ProjectEntity, parent: string, manager: EntityManager): Promise<string> {
    const [link] = await this.repository.findProjectLinksBySvcIds(project.id, [parent], manager);
    if (!link) throw Errors.invalid('parent', `no link ${parent} in this project`);
    return link.svcId;
  }

  /**
   * For each URL, the svc_id of the project's link it is or names with `svc=`, if any: one query
   * for all, none when no URL is on one of the project's link hosts or carries `svc=`.
   */
  async candidates(
    project: ProjectEntity,
    urls: string[],
    manager?: EntityManager,
    linkHosts?: Set<string>,
  ): Promise<Map<string, string>> {
    const hosts = linkHosts ?? (await this.projects.getLinkHosts(project.id));
    const candidates = new Map<string, string[]>();
    for (const url of urls) candidates.set(url, linkIdsOf(url, hosts));
    const all = [...new Set([...candidates.values()].flat())];
    if (all.length === 0) return new Map();
    const found = new Set(
      (await this.repository.findProjectLinksBySvcIds(project.id, all, manager)).map(
        (l) => l.svcId,
      ),
    );
    const result = new Map<string, string>();
    for (const [url, ids] of candidates) {
      const hit = ids.find((id) => found.has(id));
      if (hit) result.set(url, hit);
    }
    return result;
  }
}

/** svc ids a URL may denote: itself when on a link host, and its `svc=` value. */
function linkIdsOf(url: string, linkHosts: Set<string>): string[] {
  const ids: string[] = [];
  const denoted = svcIdOfUrl(url);
  if (
    denoted &&
    [...linkHosts].some((d) => d === denoted.host || d.startsWith(`${denoted.host}_`))
  ) {
    ids.push(denoted.svcId);
  }
  const svc = URL.canParse(url) ? new URL(url).searchParams.get('svc') : null;
  if (svc) ids.push(svc);
  return ids;
}
