import { Injectable } from '@nestjs/common';
import { ProjectEntity } from '../projects/project.entity';
import { LinkMetadataService } from './link-metadata.service';
import { LinkRecord } from './link-record';
import { LinkEntity } from './link.entity';
import { LinkMetadataRepository } from './link-metadata.repository';
import { LinksRepository } from './links.repository';

/** Metadata of a link, user or campaign as statistics show it (docs/api.md, "Statistics"). */
export type Metadata = Record<string, string | null>;

/**
 * What other modules (statistics, conversions) read of the links module's tables — links, tools,
 * user identities, campaigns — by intent; the queries are LinksRepository's and
 * LinkMetadataRepository's.
 */
@Injectable()
export class LinkLookupsService {
  constructor(
    private readonly repository: LinksRepository,
    private readonly metadataRows: LinkMetadataRepository,
    private readonly metadata: LinkMetadataService,
  ) {}

  /** A link of the project by svc_id, or null (another project's link is not found either). */
  async findProjectLink(project: ProjectEntity, svcId: string): Promise<LinkEntity | null> {
    const [link] = await this.repository.findProjectLinksBySvcIds(project.id, [svcId]);
    return link ?? null;
  }

  /** The links' records (docs/api.md, "Tracked links"), as the link endpoints answer them. */
  records(project: ProjectEntity, links: LinkEntity[]): Promise<LinkRecord[]> {
    return this.metadata.records(project, links);
  }

  /** The project's link id by svc_id, or null. */
  linkId(projectId: string, svcId: string): Promise<string | null> {
    return this.repository.findIdBySvcId(projectId, svcId);
  }

  /** The svc_id of the project's link with this id, or null. */
  async svcIdOf(projectId: string, linkId: string): Promise<string | null> {
    return this.repository.findSvcIdById(projectId, linkId);
  }

  /** The project's link ids by svc_id, for the svc_ids that name one of its links (webhooks' `links`). */
  linkIds(projectId: string, svcIds: string[]): Promise<Map<string, string>> {
    return this.repository.findIdsBySvcIds(projectId, svcIds);
  }

  /** The svc_ids of the links with these ids, by id (a link deleted since is missing). */
  svcIds(ids: string[]): Promise<Map<string, string>> {
    return this.repository.findSvcIdsByIds(ids);
  }

  /**
   * The project's imported links (docs/api.md, "Importing links") after link `afterId` (ids in
   * order; "0" for the first page), at most `limit`: id and imported_clicks, as text.
   */
  importedClicks(
    projectId: string,
    afterId: string,
    limit: number,
  ): Promise<{ id: string; imported_clicks: string }[]> {
    return this.repository.findImportedClicks(projectId, afterId, limit);
  }

  /** The keys of the projects' tools labelled `label` (a tool filter matches a key or a label). */
  toolKeysByLabel(projectIds: string[], label: string): Promise<string[]> {
    return this.metadataRows.findToolKeysByLabel(projectIds, label);
  }

  /** svc_id: original_url, notes. */
  linkMetadata(projectIds: string[], svcId: string): Promise<Metadata | null> {
    return this.repository.findLinkMetadata(projectIds, svcId);
  }

  /** user_id: username, icon_url, profile_url. */
  userMetadata(projectIds: string[], userId: string): Promise<Metadata | null> {
    return this.metadataRows.findUserMetadata(projectIds, userId);
  }

  /** campaign: name, description. */
  campaignMetadata(projectIds: string[], stub: string): Promise<Metadata | null> {
    return this.metadataRows.findCampaignMetadata(projectIds, stub);
  }
}
