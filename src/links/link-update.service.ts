import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { LinkMirror } from '../analytics/link-mirror';
import { EventPublisher } from '../events/event-publisher';
import { linkEvents } from '../events/link-events';
import { Errors } from '../common/app-error';
import { isoTimestamp } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ProjectEntity } from '../projects/project.entity';
import { InvalidationBus } from '../queue/invalidation-bus';
import { ChainMoves } from './chain-moves.service';
import { refusingChains } from './chain-refusal';
import { normaliseServiceId, requireServiceId, serviceForChannel } from './channels';
import { changesTargets, givesControls, resolveControls } from './controls/link-controls';
import { LinkInput } from './link-input';
import { RedirectInputs, ruleRedirects } from './link-redirect';
import { LinkMetadataRepository } from './link-metadata.repository';
import { LinkMetadataService } from './link-metadata.service';
import { LinkParentsService } from './link-parents.service';
import { LinkRecord } from './link-record';
import { LinkEntity } from './link.entity';
import { LinksRepository, NewLink } from './links.repository';
import { changesMetadata } from './static-fingerprint';

const UPDATE_WINDOW_MS = 30 * 24 * 3600 * 1000;

/** What update reads and leaves as it is: tool names the caller, url is ignored (below). */
const NOT_METADATA = new Set(['tool', 'controls', 'url']);

/** Whether an update request gives metadata (anything but tool, url and the link controls). */
function givesMetadata(input: LinkInput): boolean {
  return Object.entries(input).some(
    ([name, value]) => !NOT_METADATA.has(name) && value !== undefined,
  );
}

/**
 * The link an update takes: the project's, created within the last 30 days unless the request
 * gives only controls, and neither its domain nor its path given.
 */
function check(
  link: LinkEntity | null,
  project: ProjectEntity,
  id: string,
  input: LinkInput,
  controlsOnly: boolean,
): LinkEntity {
  if (!link || link.projectId !== project.id)
    throw Errors.notFound(`No link ${id} in this project`);
  if (!controlsOnly && Date.now() - link.createdAt.getTime() > UPDATE_WINDOW_MS) {
    throw Errors.badRequest(
      `Link ${id} was created more than 30 days ago; links can be updated only within 30 days of creation`,
    );
  }
  for (const [field, value] of [
    ['domain', input.domain],
    ['path', input.path],
  ] as const) {
    if (value !== undefined) throw Errors.invalid(field, 'cannot change on an existing link');
  }
  return link;
}

/** url/update (docs/api.md, "Tracked links": update), for the project ProjectKeyGuard authenticated. */
@Injectable()
export class LinkUpdateService {
  constructor(
    private readonly config: AppConfig,
    private readonly repository: LinksRepository,
    private readonly metadata: LinkMetadataService,
    private readonly metadataRows: LinkMetadataRepository,
    private readonly parents: LinkParentsService,
    private readonly dataSource: DataSource,
    private readonly mirror: LinkMirror,
    private readonly invalidation: InvalidationBus,
    private readonly chainMoves: ChainMoves,
    private readonly publisher: EventPublisher,
  ) {}

  /**
   * Changes the given fields of a link created within the last 30 days; original_url, redirect_url
   * and created_at never change. A `url` (checked as on create) is accepted and ignored, as the
   * original service did: its clients send it on every update (docs/api.md, "Tracked links").
   * Another project's link is not found. Link controls change at any
   * age (docs/api.md, "Link controls"): a request that gives only them (and tool) is taken after
   * the 30 days too, leaves the statistics' mirror of the link as it is, and every instance's
   * redirect cache forgets the link.
   */
  async update(project: ProjectEntity, id: string, input: LinkInput): Promise<LinkRecord> {
    let updated: LinkEntity | null = null;
    let move: string | null = null;
    const controlsOnly = givesControls(input.controls) && !givesMetadata(input);
    // A new password is hashed (scrypt) only for a link the request may update, and before the
    // transaction: on PGlite a transaction holds the only session.
    if (typeof input.controls?.password === 'string') {
      check(await this.repository.findBySvcId(id), project, id, input, controlsOnly);
    }
    const controls = input.controls ? await resolveControls(input.controls) : {};
    const events = await this.publisher.open(project.id, 'link.updated');
    const record = await this.dataSource.transaction(async (manager) => {
      const link = check(
        await this.repository.findBySvcId(id, manager),
        project,
        id,
        input,
        controlsOnly,
      );
      const changes: Partial<NewLink> = {};
      const channel = input.channel ?? link.channel;
      if (input.channel !== undefined) {
        changes.channel = input.channel;
        changes.service = serviceForChannel(input.channel);
      }
      if (input.serviceUserid !== undefined)
        changes.serviceUserid = requireServiceId(input.serviceUserid, channel, 'service_userid');
      if (input.servicePostid !== undefined)
        changes.servicePostid = requireServiceId(input.servicePostid, channel, 'service_postid');
      // A new channel must fit the service ids the link keeps (docs/api.md, "Tracked links":
      // service ids match the channel's service): give them anew with it.
      if (input.channel !== undefined) {
        for (const [parameter, kept] of [
          ['service_userid', input.serviceUserid === undefined ? link.serviceUserid : null],
          ['service_postid', input.servicePostid === undefined ? link.servicePostid : null],
        ] as const) {
          if (kept !== null && !normaliseServiceId(kept, channel).ok) {
            throw Errors.invalid(
              'channel',
              `${channel} does not match the link's ${parameter} ${kept}; give ${parameter} for the new channel too`,
            );
          }
        }
      }
      if (input.servicePostidReach !== undefined)
        changes.servicePostidReach = String(input.servicePostidReach);
      if (input.servicePostidSharedAt !== undefined)
        changes.servicePostidSharedAt = input.servicePostidSharedAt;
      if (input.campaign !== undefined)
        changes.campaign = (await this.metadata.campaign(project, input, manager)).stub;
      if (input.notes !== undefined) changes.notes = input.notes;
      if (input.tag !== undefined) changes.tag = input.tag;
      for (const [name, property] of [
        ['tag_2', 'tag2'],
        ['tag_3', 'tag3'],
        ['tag_4', 'tag4'],
        ['tag_5', 'tag5'],
      ] as const) {
        const tags = input.tags?.[name];
        if (tags) changes[property] = tags;
      }
      if (input.parent !== undefined) {
        changes.parent = await this.parents.explicit(project, input.parent, manager);
        // Under the project's re-parent lock, held to the commit (docs/api.md, "Security").
        await this.chainMoves.checkParent(link, changes.parent, manager);
      }
      if (input.sharerId !== undefined) {
        changes.sharerId = input.sharerId;
        changes.username = await this.metadata.sharerUsername(project, input.sharerId, manager);
      }
      if (input.userId !== undefined) {
        changes.userId = input.userId;
        await this.metadata.identity(project, input, manager);
      }
      // A static link answers for its current metadata only (docs/api.md, static): once that
      // changes, its fingerprint is free for a new link with the old metadata.
      if (link.staticKey !== null && changesMetadata(changes, link)) changes.staticKey = null;
      Object.assign(changes, controls);
      if (changesTargets(controls)) {
        const row = { ...link, ...changes };
        changes.ruleRedirects = ruleRedirects(
          row,
          await this.redirectInputs(project, row, manager),
        );
      }
      // Re-parenting fires the chain trigger, the backstop of checkParent's refusals.
      const saved = await refusingChains(this.repository.updateLink(link.id, changes, manager));
      updated = saved;
      if (input.parent !== undefined) move = await this.chainMoves.record(saved, manager);
      const [record] = await this.metadata.records(project, [saved], manager);
      const answer = { ...record, updated_at: isoTimestamp(saved.updatedAt) };
      await events.add(manager, linkEvents('link.updated', project.id, [saved], [answer]));
      return answer;
    });
    // The trigger gave the link its new chain, mirrored here as a move (events stamped with its
    // chain before are counted under the new one); its subtree follows (ChainMoves).
    if (!controlsOnly) await this.mirror.mirror([updated!], undefined, move !== null);
    if (move !== null) await this.chainMoves.enqueue(updated!, move);
    if (givesControls(input.controls)) await this.invalidation.changed('link', [updated!.svcId]);
    events.handOver();
    return record;
  }

  /** What the link's targeting URLs are served through: its project's patterns and UTM, as now. */
  private async redirectInputs(
    project: ProjectEntity,
    link: LinkEntity,
    manager: EntityManager,
  ): Promise<RedirectInputs> {
    const tool = await this.metadata.tool(project, link.tool, manager);
    const [campaign] = link.campaign
      ? await this.metadataRows.findCampaigns(project.id, [link.campaign], manager)
      : [];
    const [identity] = link.userId
      ? await this.metadataRows.findUserIdentities(project.id, [link.userId], manager)
      : [];
    return {
      pageUrl: link.originalUrl,
      settings: project.settings,
      toolLabel: tool.label,
      scheme: this.config.publicScheme,
      campaign: campaign ?? null,
      identity: identity ?? null,
      createdAt: link.createdAt,
    };
  }
}
