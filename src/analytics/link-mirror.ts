import { Inject, Injectable } from '@nestjs/common';
import { AnalyticsClient, chTime } from './analytics-client';
import { countStampStateWrite } from './stamp-state';

/** A link as the mirror reads it: its id, times and statistics attributes (a LinkEntity is one). */
export interface MirroredLink {
  id: string;
  projectId: string;
  svcId: string;
  domain: string;
  originalUrl: string;
  channel: string | null;
  service: string | null;
  tool: string;
  application: string;
  campaign: string | null;
  tag: string | null;
  tag2: string[] | null;
  tag3: string[] | null;
  tag4: string[] | null;
  tag5: string[] | null;
  parent: string | null;
  sharerId: string | null;
  username: string | null;
  serviceUserid: string | null;
  servicePostid: string | null;
  servicePostidSharedAt: Date | null;
  userId: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Its chain (parent first), root and depth; null (or absent) while it has none (LinkChains). */
  ancestors?: string[] | null;
  rootId?: string | null;
  depth?: number | null;
}

/** A link's chain as `link_chains` holds it. */
export interface ChainRow {
  project_id: string;
  link_id: string;
  version: number;
  root_id: string;
  depth: number;
  ancestors: string[];
  /** The link's shared time, as `links` holds it: the chain statistics count shares by it. */
  shared_at: string;
}

/** A link's row of `link_chains` at `version`, or null while the link has no chain. */
export function chainRow(link: MirroredLink, version: number): ChainRow | null {
  if (!link.ancestors || link.rootId === null || link.rootId === undefined) return null;
  return {
    project_id: link.projectId,
    link_id: link.id,
    version,
    root_id: link.rootId,
    depth: link.depth ?? link.ancestors.length,
    ancestors: link.ancestors,
    shared_at: chTime(link.servicePostidSharedAt ?? link.createdAt),
  };
}

/** A link's row of `links`. */
type MirrorRow = Record<string, unknown> & { version: number };

/** A link's statistics attributes as the `links` table of the analytics store holds them. */
export function mirrorRow(link: MirroredLink, version?: number): MirrorRow {
  return {
    project_id: link.projectId,
    link_id: link.id,
    // Each version replaces the ones before it (ReplacingMergeTree): the row's update time in µs.
    version: version ?? link.updatedAt.getTime() * 1000,
    svc_id: link.svcId,
    domain: link.domain,
    original_url: link.originalUrl,
    channel: link.channel,
    service: link.service,
    tool: link.tool,
    application: link.application,
    campaign: link.campaign,
    tag: link.tag,
    tag_2: link.tag2 ?? [],
    tag_3: link.tag3 ?? [],
    tag_4: link.tag4 ?? [],
    tag_5: link.tag5 ?? [],
    parent: link.parent,
    sharer_id: link.sharerId,
    username: link.username,
    service_userid: link.serviceUserid,
    service_postid: link.servicePostid,
    user_id: link.userId,
    created_at: chTime(link.createdAt),
    shared_at: chTime(link.servicePostidSharedAt ?? link.createdAt),
  };
}

/**
 * Keeps the analytics store's mirror of link attributes and chains: every link written through the API is
 * mirrored before that call returns (read your writes), and statistics join the latest version.
 */
@Injectable()
export class LinkMirror {
  constructor(@Inject(AnalyticsClient) private readonly analytics: AnalyticsClient) {}

  /**
   * Inserts each link's attributes as a new version (`version`: above every earlier one, for a
   * repair). A version other than the one a link is created with (an update, a repair) is first
   * recorded in `link_updates`: events stamped with another version of that link are then regrouped
   * by its latest attributes (StatsRepository). Its chain is written first, so that a link found
   * in `links` has its chain (events are stamped with both: LinkStamps); `chainMoved` says the
   * links' chains changed (a re-parented link), recorded in `chain_moves` before (moveChains).
   */
  async mirror(links: MirroredLink[], version?: number, chainMoved = false): Promise<void> {
    const rows = links.map((link) => mirrorRow(link, version));
    // A link is created with the version of its creation time (updated_at = created_at).
    const updates = rows
      .filter((row, i) => row.version !== links[i].createdAt.getTime() * 1000)
      .map((row) => ({ project_id: row.project_id, link_id: row.link_id, version: row.version }));
    // A root needs no chain row: a link without one is its own root at depth 0 (the readers of
    // link_chains), so a link without a parent is mirrored by one insert, not two. (A link never
    // becomes a root again through the API: `parent` can be changed, not removed.)
    const chains = links.map((link, i) =>
      link.depth === 0 ? null : chainRow(link, rows[i].version),
    );
    if (chainMoved) await this.moveChains(chains);
    else await this.insertChains(chains);
    // A listed update changes its project's stamp state (stamp-state.ts).
    if (updates.length > 0)
      await countStampStateWrite(this.analytics, this.analytics.insert('link_updates', updates));
    await this.analytics.insert('links', rows);
  }

  /**
   * Writes links' new chains (a new version each; null entries, links without one, are skipped)
   * after listing them in `chain_moves`: events stamped with a link's chain before are then counted
   * under its latest (docs/architecture.md, "Share chains").
   */
  async moveChains(chains: (ChainRow | null)[]): Promise<void> {
    const rows = chains.filter((row): row is ChainRow => row !== null);
    if (rows.length === 0) return;
    const movedAt = chTime(new Date());
    const moves = rows.map((row) => ({
      project_id: row.project_id,
      link_id: row.link_id,
      moved_at: movedAt,
    }));
    // A listed move changes its project's stamp state (stamp-state.ts).
    await countStampStateWrite(this.analytics, this.analytics.insert('chain_moves', moves));
    await this.insertChains(rows);
  }

  private async insertChains(chains: (ChainRow | null)[]): Promise<void> {
    const rows = chains.filter((row): row is ChainRow => row !== null);
    if (rows.length > 0) await this.analytics.insert('link_chains', rows);
  }
}
