import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { LinkMirror } from '../analytics/link-mirror';
import { EventPublisher } from '../events/event-publisher';
import { linkEvents } from '../events/link-events';
import { ErrorCode, Errors } from '../common/app-error';
import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import { ProjectLookupsService } from '../projects/project-lookups.service';
import { ProjectEntity } from '../projects/project.entity';
import { CampaignEntity } from './campaign.entity';
import { refusingChains } from './chain-refusal';
import { requireServiceId, serviceForChannel } from './channels';
import { LinkInput, importedColumns } from './link-input';
import { LinkMetadataService } from './link-metadata.service';
import { LinkParentsService } from './link-parents.service';
import { ApiPaths } from '../common/api-paths';
import { isValidCustomPath, randomPath, svcId } from './link-path';
import { LinkRecord } from './link-record';
import { RedirectInputs, applyRedirect } from './link-redirect';
import { LinkEntity } from './link.entity';
import { LinksRepository, NewLink } from './links.repository';
import { protectedFingerprint, staticFingerprint } from './static-fingerprint';
import { verifyPassword } from './controls/link-password';
import { ControlChanges, resolveEach } from './controls/link-controls';

const PATH_LENGTH = 7;
const PATH_ATTEMPTS = 5;
/**
 * Protected links static verifies a password against (scrypt, ~50 ms each), made through static
 * first, else the oldest; past them it makes a new link (docs/api.md, static).
 */
const STATIC_PASSWORD_CANDIDATES = 5;

interface CreateContext {
  /** Hosts the project may create links on (the shared default domain and its own). */
  domains: Set<string>;
  /** Implicit parents of the request's URLs. */
  parents: Map<string, string>;
  /** Campaigns already settled in this request. */
  campaigns: Map<string, CampaignEntity>;
  /** When the request's links are created, for %created_at%; read only for a project with patterns. */
  createdAt: Date | null;
}

/** A link's input that passed LinksService.check: with its tool and url. */
type CheckedInput = LinkInput & { tool: string; url: string };

interface Prepared {
  row: NewLink;
  customPath: boolean;
  /** What redirect_url is built from; built again when a collision changes the path. */
  redirect: RedirectInputs;
}

/**
 * Link creation (docs/api.md, "Tracked links"): create, batch and static (retweet and share create
 * through it too), for the project ProjectKeyGuard authenticated. Metadata (tools, campaigns, user
 * identities, sharers) is LinkMetadataService's, parents LinkParentsService's, update
 * LinkUpdateService's.
 */
@Injectable()
export class LinksService {
  constructor(
    private readonly config: AppConfig,
    private readonly repository: LinksRepository,
    private readonly projects: ProjectLookupsService,
    private readonly metadata: LinkMetadataService,
    private readonly parents: LinkParentsService,
    private readonly dataSource: DataSource,
    private readonly invalidation: InvalidationBus,
    private readonly mirror: LinkMirror,
    private readonly apiPaths: ApiPaths,
    private readonly publisher: EventPublisher,
  ) {}

  /**
   * Creates one link per input, in order (create and batch). `implicitParents: false` (retweet with
   * make_parent=false) keeps links of the service in `url` from becoming parents.
   */
  async create(
    project: ProjectEntity,
    inputs: LinkInput[],
    options: { requireChannel: boolean; implicitParents?: boolean },
  ): Promise<LinkRecord[]> {
    const context = await this.context(project);
    const checked = inputs.map((input) =>
      this.check(project, input, context, options.requireChannel),
    );
    const controls = await resolveEach(inputs.map((input) => input.controls));
    const events = await this.publisher.open(project.id, 'link.created');
    return this.dataSource
      .transaction(async (manager) => {
        context.createdAt = await this.creationTime(project, manager);
        const implicit = checked.filter((i) => i.parent === undefined).map((i) => i.url);
        if (options.implicitParents !== false) {
          context.parents = await this.parents.candidates(
            project,
            implicit,
            manager,
            context.domains,
          );
        }
        const prepared: Prepared[] = [];
        for (const [i, input] of checked.entries()) {
          prepared.push(await this.prepare(project, input, controls[i], context, manager));
        }
        const links = await this.insertAll(prepared, manager);
        const records = await this.metadata.records(project, links, manager);
        await events.add(manager, linkEvents('link.created', project.id, links, records));
        return { links, records };
      })
      .then(async ({ links, records }) => {
        await this.mirror.mirror(links);
        await this.announce(links);
        events.handOver();
        return records;
      });
  }

  /**
   * Every instance learns of the new links: its filter of existing paths takes them, and a wanted
   * path visited before it existed, cached as unknown, is forgotten (docs/architecture.md, "How a
   * redirect flows").
   */
  private async announce(links: LinkEntity[]): Promise<void> {
    await this.invalidation.changed(
      'link',
      links.map((link) => link.svcId),
    );
  }

  /**
   * Returns the project's link with the same url and metadata (made by any endpoint) and the same
   * password or none, or creates it (`new` says which). The password given, in clear: a protected
   * link matches only when it verifies against the link's hash.
   */
  async createStatic(project: ProjectEntity, input: LinkInput): Promise<LinkRecord> {
    const context = await this.context(project);
    const checked = this.check(project, input, context, false);
    const password = input.controls?.password ?? null;
    const [controls] = await resolveEach([input.controls]);
    let inserted: LinkEntity | null = null;
    const events = await this.publisher.open(project.id, 'link.created');
    const record = await this.dataSource.transaction(async (manager): Promise<LinkRecord> => {
      context.createdAt = await this.creationTime(project, manager);
      if (checked.parent === undefined) {
        context.parents = await this.parents.candidates(
          project,
          [checked.url],
          manager,
          context.domains,
        );
      }
      const prepared = await this.prepare(project, checked, controls, context, manager);
      const path = prepared.customPath ? prepared.row.path : null;
      const key = staticFingerprint(prepared.row, prepared.customPath);
      const found = (link: LinkEntity) => this.staticRecord(project, link, false, manager);
      const made = async (link: LinkEntity) => {
        inserted = link;
        const madeRecord = await this.staticRecord(project, link, true, manager);
        await events.add(manager, linkEvents('link.created', project.id, [link], [madeRecord]));
        return madeRecord;
      };
      if (password !== null && prepared.row.passwordHash) {
        // Serialised per fingerprint: the password's link is found by verifying, not by a key.
        await this.repository.lockStatic(project.id, key, manager);
        const candidates = await this.repository.findSame(
          prepared.row,
          path,
          true,
          STATIC_PASSWORD_CANDIDATES,
          manager,
        );
        for (const candidate of candidates) {
          if (await verifyPassword(password, candidate.passwordHash!)) return found(candidate);
        }
        prepared.row.staticKey = protectedFingerprint(key, prepared.row.passwordHash);
        return made((await this.insertAll([prepared], manager))[0]);
      }
      prepared.row.staticKey = key;
      // Any unprotected link of the project with this url and metadata, however it was made.
      const [existing] = await this.repository.findSame(prepared.row, path, false, 1, manager);
      if (existing) return found(existing);
      // A concurrent identical request may insert first: its row holds the fingerprint
      // (uq_links_static) and is returned.
      let [first] = await refusingChains(this.repository.insertLinks([prepared.row], manager));
      if (!first) {
        let holder = await this.repository.findStatic(project.id, key, manager);
        if (
          holder &&
          (staticFingerprint(holder, prepared.customPath) !== key || holder.passwordHash)
        ) {
          // Its metadata changed since it took the fingerprint (updated before update released
          // fingerprints), or an update gave it a password: it is no longer this request's link
          // and gives the fingerprint up.
          await this.repository.releaseStaticKey(holder.id, key, manager);
          [first] = await refusingChains(this.repository.insertLinks([prepared.row], manager));
          holder = first ? null : await this.repository.findStatic(project.id, key, manager);
        }
        if (holder) return found(holder);
      }
      return made(first ?? (await this.insertAll([prepared], manager))[0]);
    });
    if (inserted) {
      await this.mirror.mirror([inserted]);
      await this.announce([inserted]);
    }
    events.handOver();
    return record;
  }

  private async staticRecord(
    project: ProjectEntity,
    link: LinkEntity,
    isNew: boolean,
    manager: EntityManager,
  ): Promise<LinkRecord> {
    return { ...(await this.metadata.records(project, [link], manager))[0], new: isNew };
  }

  /** Read before a transaction opens: on PGlite a transaction holds the only session. */
  private async context(project: ProjectEntity): Promise<CreateContext> {
    return {
      domains: await this.projects.getLinkHosts(project.id),
      parents: new Map(),
      campaigns: new Map(),
      createdAt: null,
    };
  }

  /**
   * The created_at links inserted in this transaction get (the column defaults to now(), the
   * transaction's start), so a pattern's %created_at% is the link's; null without patterns.
   */
  private async creationTime(project: ProjectEntity, manager: EntityManager): Promise<Date | null> {
    const patterns = project.settings.redirection_patterns;
    if (!patterns || Object.keys(patterns).length === 0) return null;
    return this.repository.transactionTime(manager);
  }

  /** The checks of a link's input that need no database: before its password is hashed. */
  private check(
    project: ProjectEntity,
    input: LinkInput,
    context: CreateContext,
    requireChannel: boolean,
  ): CheckedInput {
    if (input.tool === undefined) throw Errors.missing('tool');
    if (requireChannel && input.channel === undefined) throw Errors.missing('channel');
    if (input.url === undefined) throw Errors.missing('url');
    const domain = input.domain ?? project.defaultDomain;
    if (!context.domains.has(domain)) {
      throw Errors.forbidden(
        `The project has no access to domain ${domain}`,
        ErrorCode.notPermitted,
      );
    }
    if (input.path !== undefined && !isValidCustomPath(input.path)) {
      throw Errors.invalid(
        'path',
        'must be URL-safe segments (A-Z a-z 0-9 _ . ~ -) separated by /, at most 200 characters',
      );
    }
    if (
      input.path !== undefined &&
      domain === this.config.defaultDomain &&
      this.apiPaths.has(input.path)
    ) {
      throw Errors.invalid('path', `${input.path.split('/')[0]} belongs to the API on ${domain}`);
    }
    return { ...input, tool: input.tool, url: input.url };
  }

  /** A link's row, its input passed check() and its controls resolved. */
  private async prepare(
    project: ProjectEntity,
    input: CheckedInput,
    controls: ControlChanges,
    context: CreateContext,
    manager: EntityManager,
  ): Promise<Prepared> {
    const domain = input.domain ?? project.defaultDomain;
    const channel = input.channel ?? null;
    const tool = await this.metadata.tool(project, input.tool, manager);
    const campaign =
      input.campaign !== undefined
        ? await this.memoCampaign(project, input, context, manager)
        : null;
    const parent =
      input.parent !== undefined
        ? await this.parents.explicit(project, input.parent, manager)
        : (context.parents.get(input.url) ?? null);
    const username =
      input.sharerId !== undefined
        ? await this.metadata.sharerUsername(project, input.sharerId, manager)
        : null;
    const identity =
      input.userId !== undefined ? await this.metadata.identity(project, input, manager) : null;
    const path = input.path ?? randomPath(PATH_LENGTH);
    const settings = project.settings;
    const row: NewLink = {
      projectId: project.id,
      svcId: svcId(domain, path),
      domain,
      path,
      originalUrl: input.url,
      redirectUrl: input.url,
      channel,
      service: channel === null ? null : serviceForChannel(channel),
      tool: input.tool,
      application: tool.application,
      parent,
      // Lower case, as PostgreSQL returns a uuid: a stored row's fingerprint matches the request's.
      sharerId: input.sharerId?.toLowerCase() ?? null,
      username,
      serviceUserid:
        input.serviceUserid === undefined
          ? null
          : requireServiceId(input.serviceUserid, channel, 'service_userid'),
      servicePostid:
        input.servicePostid === undefined
          ? null
          : requireServiceId(input.servicePostid, channel, 'service_postid'),
      servicePostidReach:
        input.servicePostidReach === undefined ? null : String(input.servicePostidReach),
      servicePostidSharedAt: input.servicePostidSharedAt ?? null,
      campaign: campaign?.stub ?? null,
      userId: input.userId ?? null,
      tag: input.tag ?? null,
      tag2: input.tags?.tag_2 ?? null,
      tag3: input.tags?.tag_3 ?? null,
      tag4: input.tags?.tag_4 ?? null,
      tag5: input.tags?.tag_5 ?? null,
      notes: input.notes ?? null,
      staticKey: null,
      ...importedColumns(input),
      ...controls,
    };
    const redirect: RedirectInputs = {
      pageUrl: input.url,
      settings,
      toolLabel: tool.label,
      scheme: this.config.publicScheme,
      campaign,
      identity,
      createdAt: input.createdAt ?? context.createdAt,
    };
    applyRedirect(row, redirect);
    return { row, customPath: input.path !== undefined, redirect };
  }

  /** Inserts all rows at once; random paths that collided are drawn again, custom ones are a 409. */
  private async insertAll(prepared: Prepared[], manager: EntityManager): Promise<LinkEntity[]> {
    const byPosition = new Map<number, LinkEntity>();
    let pending = prepared.map((p, position) => ({ ...p, position }));
    for (let attempt = 1; pending.length > 0; attempt++) {
      const inserted = await refusingChains(
        this.repository.insertLinks(
          pending.map((p) => p.row),
          manager,
        ),
      );
      const bySvcId = new Map(inserted.map((link) => [link.svcId, link]));
      const missed: typeof pending = [];
      for (const p of pending) {
        const link = bySvcId.get(p.row.svcId);
        if (link && link.path === p.row.path) byPosition.set(p.position, link);
        else missed.push(p);
      }
      for (const p of missed) {
        if (p.customPath) {
          throw Errors.conflict(`Path ${p.row.path} is already taken on ${p.row.domain}`);
        }
        if (attempt >= PATH_ATTEMPTS) throw new Error('could not find a free random path');
        p.row.path = randomPath(PATH_LENGTH + Math.floor(attempt / 2));
        p.row.svcId = svcId(p.row.domain, p.row.path);
        applyRedirect(p.row, p.redirect);
      }
      pending = missed;
    }
    return prepared.map((_, position) => byPosition.get(position)!);
  }

  /** A batch names a campaign once per distinct value. */
  private async memoCampaign(
    project: ProjectEntity,
    input: LinkInput,
    context: CreateContext,
    manager: EntityManager,
  ): Promise<CampaignEntity> {
    const memoKey = JSON.stringify([input.campaign, input.campaignName, input.campaignDescription]);
    let campaign = context.campaigns.get(memoKey);
    if (!campaign) {
      campaign = await this.metadata.campaign(project, input, manager);
      context.campaigns.set(memoKey, campaign);
    }
    return campaign;
  }
}
