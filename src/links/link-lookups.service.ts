import { Injectable } from '@nestjs/common';
import { LinksRepository } from './links.repository';

/** Metadata of a link, user or campaign as statistics show it (docs/api.md, "Statistics"). */
export type Metadata = Record<string, string | null>;

/**
 * What other modules (statistics) read of the links module's tables — links, tools, user
 * identities, campaigns — by intent; the queries are LinksRepository's.
 */
@Injectable()
export class LinkLookupsService {
  constructor(private readonly repository: LinksRepository) {}

  /** The project's link id by svc_id, or null. */
  linkId(projectId: string, svcId: string): Promise<string | null> {
    return this.repository.findIdBySvcId(projectId, svcId);
  }

  /** The keys of the projects' tools labelled `label` (a tool filter matches a key or a label). */
  toolKeysByLabel(projectIds: string[], label: string): Promise<string[]> {
    return this.repository.findToolKeysByLabel(projectIds, label);
  }

  /** svc_id: original_url, notes. */
  linkMetadata(projectIds: string[], svcId: string): Promise<Metadata | null> {
    return this.repository.findLinkMetadata(projectIds, svcId);
  }

  /** user_id: username, icon_url, profile_url. */
  userMetadata(projectIds: string[], userId: string): Promise<Metadata | null> {
    return this.repository.findUserMetadata(projectIds, userId);
  }

  /** campaign: name, description. */
  campaignMetadata(projectIds: string[], stub: string): Promise<Metadata | null> {
    return this.repository.findCampaignMetadata(projectIds, stub);
  }
}
