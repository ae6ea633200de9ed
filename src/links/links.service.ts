import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { LinkMirror } from '../analytics/link-mirror';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { isoTimestamp } from '../common/time';
import { AppConfig } from '../config/app-config';
import { InvalidationBus } from '../queue/invalidation-bus';
import { ProjectEntity, ProjectSettings } from '../projects/project.entity';
import { ProjectsService } from '../projects/projects.service';
import { CampaignEntity } from './campaign.entity';
import { isStub, stubify } from './campaign';
import { normaliseServiceId, serviceForChannel } from './channels';
import { LinkInput } from './link-input';
import { isApiPath, isValidCustomPath, randomPath, svcId, svcIdOfUrl, svcUrl } from './link-path';
import { LinkRecord, toLinkRecord } from './link-record';
import { LinkEntity } from './link.entity';
import { LINK_METADATA, LinksRepository, NewLink } from './links.repository';
import { PatternValues, expandPattern } from '../common/redirect-pattern';
import { ToolEntity } from './tool.entity';
import { UserIdentityEntity } from './user-identity.entity';

const UPDATE_WINDOW_MS = 30 * 24 * 3600 * 1000;
const PATH_LENGTH = 7;
const PATH_ATTEMPTS = 5;

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

interface Prepared {
  row: NewLink;
  customPath: boolean;
  /** What redirect_url is built from; rebuilt when a collision changes the path. */
  redirect: RedirectInputs;
}

interface RedirectInputs {
  pageUrl: string;
  settings: ProjectSettings;
  toolLabel: string;
  scheme: string;
  campaign: CampaignEntity | null;
  identity: UserIdentityEntity | null;
  createdAt: Date | null;
}

@Injectable()
export class LinksService {
  private readonly tools = new Map<string, ToolEntity>();

  constructor(
    private readonly config: AppConfig,
    private readonly repository: LinksRepository,
    private readonly projects: ProjectsService,
    private readonly dataSource: DataSource,
    private readonly bus: InvalidationBus,
    private readonly mirror: LinkMirror,
  ) {}

  /** The project of a `key` parameter; 403 "Invalid API key specified" otherwise. */
  async authenticate(key: string): Promise<ProjectEntity> {
    const project = await this.projects.findActiveByApiKey(key);
    if (!project) throw new AppError(403, ErrorCode.invalidKey, 'Invalid API key specified');
    return project;
  }

  /** A link of the project by svc_id, or null (another project's link is not found either). */
  async findProjectLink(project: ProjectEntity, id: string): Promise<LinkEntity | null> {
    const [link] = await this.repository.findProjectLinksBySvcIds(project.id, [id]);
    return link ?? null;
  }

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
    return this.dataSource.transaction(async (manager) => {
      context.createdAt = await this.creationTime(project, manager);
      const implicit = inputs.filter((i) => i.parent === undefined && i.url !== undefined).map((i) => i.url!);
      if (options.implicitParents !== false) {
        context.parents = await this.parentCandidates(project, implicit, manager, context.domains);
      }
      const prepared: Prepared[] = [];
      for (const input of inputs) {
        prepared.push(await this.prepare(project, input, context, options.requireChannel, manager));
      }
      const links = await this.insertAll(prepared, manager);
      return { links, records: await this.records(project, links, manager), custom: prepared.filter((p) => p.customPath) };
    }).then(async ({ links, records, custom }) => {
      await this.mirror.mirror(links);
      await this.announce(custom);
      return records;
    });
  }

  /**
   * A wanted path may have been visited before it existed and cached as unknown: every instance
   * forgets that. (A random path cannot have been guessed; its 30 s negative TTL covers the rest.)
   */
  private async announce(prepared: Prepared[]): Promise<void> {
    await this.bus.publish('link', prepared.map((p) => p.row.svcId));
  }

  /**
   * Returns the project's link with the same url and metadata (made by any endpoint), or creates it
   * (`new` says which).
   */
  async createStatic(project: ProjectEntity, input: LinkInput): Promise<LinkRecord> {
    const context = await this.context(project);
    let created: Prepared | null = null;
    let inserted: LinkEntity | null = null;
    const record = await this.dataSource.transaction(async (manager): Promise<LinkRecord> => {
      context.createdAt = await this.creationTime(project, manager);
      if (input.parent === undefined && input.url !== undefined) {
        context.parents = await this.parentCandidates(project, [input.url], manager, context.domains);
      }
      const prepared = await this.prepare(project, input, context, false, manager);
      const key = staticFingerprint(prepared.row, prepared.customPath);
      prepared.row.staticKey = key;
      // Any link of the project with this url and metadata, however it was made (SPEC.md 4.3a).
      const existing = await this.repository.findSame(prepared.row, prepared.customPath ? prepared.row.path : null, manager);
      if (existing) return { ...(await this.records(project, [existing], manager))[0], new: false };
      // A concurrent identical request may insert first: its row holds the fingerprint
      // (uq_links_static) and is returned.
      let [first] = await this.repository.insertLinks([prepared.row], manager);
      if (!first) {
        let holder = await this.repository.findStatic(project.id, key, manager);
        if (holder && staticFingerprint(holder, prepared.customPath) !== key) {
          // Its metadata changed since it took the fingerprint (updated before update released
          // fingerprints): it is no longer this metadata's link and gives the fingerprint up.
          await this.repository.releaseStaticKey(holder.id, key, manager);
          [first] = await this.repository.insertLinks([prepared.row], manager);
          holder = first ? null : await this.repository.findStatic(project.id, key, manager);
        }
        if (holder) return { ...(await this.records(project, [holder], manager))[0], new: false };
      }
      const [link] = first ? [first] : await this.insertAll([prepared], manager);
      if (prepared.customPath) created = prepared;
      inserted = link;
      return { ...(await this.records(project, [link], manager))[0], new: true };
    });
    if (inserted) await this.mirror.mirror([inserted]);
    if (created) await this.announce([created]);
    return record;
  }

  /**
   * Changes the given fields of a link created within the last 30 days; original_url, redirect_url
   * and created_at never change. Another project's link is not found.
   */
  async update(project: ProjectEntity, id: string, input: LinkInput): Promise<LinkRecord> {
    let updated: LinkEntity | null = null;
    const record = await this.dataSource.transaction(async (manager) => {
      const link = await this.repository.findBySvcId(id, manager);
      if (!link || link.projectId !== project.id) throw Errors.notFound(`No link ${id} in this project`);
      if (Date.now() - link.createdAt.getTime() > UPDATE_WINDOW_MS) {
        throw Errors.badRequest(`Link ${id} was created more than 30 days ago; links can be updated only within 30 days of creation`);
      }
      for (const [field, value] of [
        ['url', input.url],
        ['domain', input.domain],
        ['path', input.path],
      ] as const) {
        if (value !== undefined) throw Errors.invalid(field, 'cannot change on an existing link');
      }
      const changes: Partial<NewLink> = {};
      const channel = input.channel ?? link.channel;
      if (input.channel !== undefined) {
        changes.channel = input.channel;
        changes.service = serviceForChannel(input.channel);
      }
      if (input.serviceUserid !== undefined) changes.serviceUserid = this.serviceId(input.serviceUserid, channel, 'service_userid');
      if (input.servicePostid !== undefined) changes.servicePostid = this.serviceId(input.servicePostid, channel, 'service_postid');
      // A new channel must fit the service ids the link keeps (SPEC.md 4.1: service matching the
      // channel's service): give them anew with it.
      if (input.channel !== undefined) {
        for (const [parameter, kept] of [
          ['service_userid', input.serviceUserid === undefined ? link.serviceUserid : null],
          ['service_postid', input.servicePostid === undefined ? link.servicePostid : null],
        ] as const) {
          if (kept !== null && !normaliseServiceId(kept, channel).ok) {
            throw Errors.invalid('channel', `${channel} does not match the link's ${parameter} ${kept}; give ${parameter} for the new channel too`);
          }
        }
      }
      if (input.servicePostidReach !== undefined) changes.servicePostidReach = String(input.servicePostidReach);
      if (input.servicePostidSharedAt !== undefined) changes.servicePostidSharedAt = input.servicePostidSharedAt;
      if (input.campaign !== undefined) changes.campaign = (await this.campaign(project, input, manager)).stub;
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
      if (input.parent !== undefined) changes.parent = await this.explicitParent(project, input.parent, manager);
      if (input.sharerId !== undefined) {
        changes.sharerId = input.sharerId;
        changes.username = await this.sharerUsername(project, input.sharerId, manager);
      }
      if (input.userId !== undefined) {
        changes.userId = input.userId;
        await this.identity(project, input, manager);
      }
      // A static link answers for its current metadata only (docs/api.md, static): once that
      // changes, its fingerprint is free for a new link with the old metadata.
      if (
        link.staticKey !== null &&
        LINK_METADATA.some(
          ([property]) => property in changes && !sameValue(changes[property], link[property]),
        )
      ) {
        changes.staticKey = null;
      }
      const saved = await this.repository.updateLink(link.id, changes, manager);
      updated = saved;
      const [record] = await this.records(project, [saved], manager);
      return { ...record, updated_at: isoTimestamp(saved.updatedAt) };
    });
    await this.mirror.mirror([updated!]);
    return record;
  }

  /** Read before a transaction opens: on PGlite a transaction holds the only session. */
  private async context(project: ProjectEntity): Promise<CreateContext> {
    const authorised = await this.projects.getAuthorisedDomains(project.id);
    return {
      domains: new Set([this.config.defaultDomain, ...authorised.map((d) => d.hostname)]),
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

  private async prepare(
    project: ProjectEntity,
    input: LinkInput,
    context: CreateContext,
    requireChannel: boolean,
    manager: EntityManager,
  ): Promise<Prepared> {
    if (input.tool === undefined) throw Errors.missing('tool');
    if (requireChannel && input.channel === undefined) throw Errors.missing('channel');
    if (input.url === undefined) throw Errors.missing('url');
    const domain = input.domain ?? project.defaultDomain;
    if (!context.domains.has(domain)) {
      throw Errors.forbidden(`The project has no access to domain ${domain}`, ErrorCode.notPermitted);
    }
    if (input.path !== undefined && !isValidCustomPath(input.path)) {
      throw Errors.invalid('path', 'must be URL-safe segments (A-Z a-z 0-9 _ . ~ -) separated by /, at most 200 characters');
    }
    if (input.path !== undefined && domain === this.config.defaultDomain && isApiPath(input.path)) {
      throw Errors.invalid('path', `${input.path.split('/')[0]} belongs to the API on ${domain}`);
    }
    const channel = input.channel ?? null;
    const tool = await this.tool(project, input.tool, manager);
    const campaign = input.campaign !== undefined ? await this.memoCampaign(project, input, context, manager) : null;
    const parent =
      input.parent !== undefined
        ? await this.explicitParent(project, input.parent, manager)
        : (context.parents.get(input.url) ?? null);
    const username = input.sharerId !== undefined ? await this.sharerUsername(project, input.sharerId, manager) : null;
    const identity = input.userId !== undefined ? await this.identity(project, input, manager) : null;
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
      serviceUserid: input.serviceUserid === undefined ? null : this.serviceId(input.serviceUserid, channel, 'service_userid'),
      servicePostid: input.servicePostid === undefined ? null : this.serviceId(input.servicePostid, channel, 'service_postid'),
      servicePostidReach: input.servicePostidReach === undefined ? null : String(input.servicePostidReach),
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
    };
    const redirect: RedirectInputs = {
      pageUrl: input.url,
      settings,
      toolLabel: tool.label,
      scheme: this.config.publicScheme,
      campaign,
      identity,
      createdAt: context.createdAt,
    };
    applyRedirect(row, redirect);
    return { row, customPath: input.path !== undefined, redirect };
  }

  /** Inserts all rows at once; random paths that collided are drawn again, custom ones are a 409. */
  private async insertAll(prepared: Prepared[], manager: EntityManager): Promise<LinkEntity[]> {
    const byPosition = new Map<number, LinkEntity>();
    let pending = prepared.map((p, position) => ({ ...p, position }));
    for (let attempt = 1; pending.length > 0; attempt++) {
      const inserted = await this.repository.insertLinks(
        pending.map((p) => p.row),
        manager,
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

  /** Link records with campaign and user metadata, read in one query each. */
  async records(project: ProjectEntity, links: LinkEntity[], manager?: EntityManager): Promise<LinkRecord[]> {
    const stubs = [...new Set(links.map((l) => l.campaign).filter((c): c is string => c !== null))];
    const userIds = [...new Set(links.map((l) => l.userId).filter((u): u is string => u !== null))];
    const campaigns = new Map<string, CampaignEntity>(
      (await this.repository.findCampaigns(project.id, stubs, manager)).map((c) => [c.stub, c]),
    );
    const identities = new Map<string, UserIdentityEntity>(
      (await this.repository.findUserIdentities(project.id, userIds, manager)).map((u) => [u.userId, u]),
    );
    return links.map((link) =>
      toLinkRecord(
        link,
        this.config.publicScheme,
        link.campaign ? (campaigns.get(link.campaign) ?? null) : null,
        link.userId ? (identities.get(link.userId) ?? null) : null,
      ),
    );
  }

  /**
   * A tool key maps to its registered label and application; an unknown key is registered on
   * first use: label = the key stubified, application = the label's part before its first `-`.
   */
  private async tool(project: ProjectEntity, key: string, manager: EntityManager): Promise<ToolEntity> {
    const cacheKey = `${project.id}\u0000${key}`;
    const cached = this.tools.get(cacheKey);
    if (cached) return cached;
    const label = stubify(key) ?? 'tool';
    const dash = label.indexOf('-');
    const application = dash > 0 ? label.slice(0, dash) : label;
    const tool = await this.repository.registerTool(project.id, key, label, application, manager);
    // Registered tools never change, so every instance may keep them; the map is bounded.
    if (this.tools.size >= 10_000) this.tools.clear();
    this.tools.set(cacheKey, tool);
    return tool;
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
      campaign = await this.campaign(project, input, manager);
      context.campaigns.set(memoKey, campaign);
    }
    return campaign;
  }

  /**
   * The campaign stub. A new campaign needs campaign_description; its name defaults to the value
   * as submitted. An existing one keeps its name and description unless new ones are given.
   */
  private async campaign(project: ProjectEntity, input: LinkInput, manager: EntityManager): Promise<CampaignEntity> {
    const value = input.campaign!;
    const stub = stubify(value);
    if (!stub) throw Errors.invalid('campaign', 'must contain at least one letter or digit');
    const [existing] = await this.repository.findCampaigns(project.id, [stub], manager);
    if (!existing) {
      if (input.campaignDescription === undefined) {
        throw Errors.invalid('campaign_description', `must be given when campaign "${stub}" is created`);
      }
      return this.repository.upsertCampaign(project.id, stub, input.campaignName ?? value, input.campaignDescription, manager);
    }
    if (input.campaignName !== undefined || input.campaignDescription !== undefined || !isStub(value)) {
      return this.repository.upsertCampaign(
        project.id,
        stub,
        input.campaignName ?? (isStub(value) ? null : value),
        input.campaignDescription ?? null,
        manager,
      );
    }
    return existing;
  }

  private async explicitParent(project: ProjectEntity, parent: string, manager: EntityManager): Promise<string> {
    const [link] = await this.repository.findProjectLinksBySvcIds(project.id, [parent], manager);
    if (!link) throw Errors.invalid('parent', `no link ${parent} in this project`);
    return link.svcId;
  }

  /**
   * When `url` is itself one of the project's links, or carries `svc=<svc_id>` of one, that link is
   * the parent (SPEC.md 4.1).
   */
  /**
   * For each URL, the svc_id of the project's link it is or names with `svc=`, if any: one query
   * for all, none when no URL is on one of the project's link hosts or carries `svc=`.
   */
  async parentCandidates(
    project: ProjectEntity,
    urls: string[],
    manager?: EntityManager,
    linkHosts?: Set<string>,
  ): Promise<Map<string, string>> {
    const hosts = linkHosts ?? (await this.context(project)).domains;
    const candidates = new Map<string, string[]>();
    for (const url of urls) candidates.set(url, linkIdsOf(url, hosts));
    const all = [...new Set([...candidates.values()].flat())];
    if (all.length === 0) return new Map();
    const found = new Set((await this.repository.findProjectLinksBySvcIds(project.id, all, manager)).map((l) => l.svcId));
    const result = new Map<string, string>();
    for (const [url, ids] of candidates) {
      const hit = ids.find((id) => found.has(id));
      if (hit) result.set(url, hit);
    }
    return result;
  }

  private async sharerUsername(project: ProjectEntity, sharerId: string, manager: EntityManager): Promise<string> {
    const username = await this.repository.findMemberUsername(project.id, sharerId, manager);
    if (username === null) throw Errors.invalid('sharer_id', `${sharerId} is not a user of this project`);
    return username;
  }

  private identity(project: ProjectEntity, input: LinkInput, manager: EntityManager): Promise<UserIdentityEntity> {
    return this.repository.upsertUserIdentity(
      project.id,
      input.userId!,
      { username: input.userIdUsername, iconUrl: input.userIdIconUrl, profileUrl: input.userIdProfileUrl },
      manager,
    );
  }

  private serviceId(value: string, channel: string | null, parameter: string): string {
    const check = normaliseServiceId(value, channel);
    if (!check.ok) throw Errors.invalid(parameter, check.reason);
    return check.value;
  }
}

/** svc ids a URL may denote: itself when on a link host, and its `svc=` value. */
function linkIdsOf(url: string, linkHosts: Set<string>): string[] {
  const ids: string[] = [];
  const denoted = svcIdOfUrl(url);
  if (denoted && [...linkHosts].some((d) => d === denoted.host || d.startsWith(`${denoted.host}_`))) {
    ids.push(denoted.svcId);
  }
  const svc = URL.canParse(url) ? new URL(url).searchParams.get('svc') : null;
  if (svc) ids.push(svc);
  return ids;
}

/** Whether two link column values are equal (tag arrays compared element by element). */
function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** The fingerprint of a static link: its domain, URL and every metadata value (LINK_METADATA). */
function staticFingerprint(row: NewLink, customPath: boolean): string {
  const parts = [row.domain, row.originalUrl, ...LINK_METADATA.map(([property]) => row[property]), customPath ? row.path : null];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** URL query parameters that do not change the page (dropped when canonicalising). */
const TRACKING_PARAMETERS = /^(utm_[a-z]+|fbclid|gclid|svc)$/i;

/** The page address without fragment, default port and tracking parameters. */
export function canonicalUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  for (const name of [...parsed.searchParams.keys()]) {
    if (TRACKING_PARAMETERS.test(name)) parsed.searchParams.delete(name);
  }
  return parsed.toString();
}

/**
 * Sets original_url and redirect_url: the project's redirection pattern for the page's hostname, if
 * any (then original_url is canonical), then the UTM parameters when the project has them on
 * (DESIGN.md). Stored campaign and user identity values fill their %fields%.
 */
function applyRedirect(row: NewLink, inputs: RedirectInputs): void {
  const { settings, campaign, identity, createdAt } = inputs;
  let originalUrl = inputs.pageUrl;
  let redirectUrl = inputs.pageUrl;
  const hostname = new URL(originalUrl).hostname.toLowerCase();
  const pattern = settings.redirection_patterns?.[hostname];
  if (pattern) {
    originalUrl = canonicalUrl(originalUrl);
    const values: PatternValues = {
      svc_url: svcUrl(inputs.scheme, row.domain, row.path),
      svc_id: row.svcId,
      domain: row.domain,
      path: row.path,
      created_at: createdAt ? isoTimestamp(createdAt) : null,
      original_url: originalUrl,
      channel: row.channel,
      service: row.service,
      tool: row.tool,
      application: row.application,
      parent: row.parent,
      sharer_id: row.sharerId,
      username: row.username,
      service_userid: row.serviceUserid,
      service_postid: row.servicePostid,
      service_postid_reach: row.servicePostidReach,
      service_postid_shared_at: row.servicePostidSharedAt
        ? isoTimestamp(row.servicePostidSharedAt)
        : null,
      campaign: row.campaign,
      campaign_name: campaign?.name ?? null,
      campaign_description: campaign?.description ?? null,
      user_id: row.userId,
      user_id_username: identity?.username ?? null,
      user_id_icon_url: identity?.iconUrl ?? null,
      user_id_profile_url: identity?.profileUrl ?? null,
      tag: row.tag,
      notes: row.notes,
    };
    redirectUrl = expandPattern(pattern, values);
  }
  if (settings.utm_parameters) {
    const target = new URL(redirectUrl);
    if (row.campaign) target.searchParams.set('utm_campaign', row.campaign);
    target.searchParams.set('utm_medium', `${row.domain}-${row.channel ?? 'static'}`);
    target.searchParams.set('utm_source', `direct-${row.domain}`);
    target.searchParams.set('utm_content', inputs.toolLabel);
    redirectUrl = target.toString();
  }
  row.originalUrl = originalUrl;
  row.redirectUrl = redirectUrl;
}
