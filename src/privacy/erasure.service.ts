import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import * as ipaddr from 'ipaddr.js';
import { LinkMirror } from '../analytics/link-mirror';
import { anonymiseIp } from '../common/ip';
import { LinkEntity } from '../links/link.entity';
import type { ProjectEntity } from '../projects/project.entity';
import { InvalidationBus } from '../queue/invalidation-bus';
import { AnalyticsRows, ErasureAnalytics } from './erasure-analytics';
import { ErasureTarget, VISITOR_KINDS } from './erasure-input';
import { ErasureRepository, ErasureRow, ErasureRows, FoundConversion } from './erasure.repository';

/**
 * The most conversion records (a visitor) or links (a sharer) one request erases: past it the
 * receipt says `complete: false`, and the same request again erases the next ones (those erased
 * match no more).
 */
export const ERASURE_CAP = 10_000;

/**
 * The spellings an address may be stored in (docs/api.md, "Erasure"): as given (and in its
 * canonical IPv6 form), and anonymised (its /24 or /48), as a project with `ip_storage`
 * `anonymised` (or CLICK_IP) keeps it. An anonymised address stands for every visitor of its
 * network: the store cannot tell them apart.
 */
export function addressForms(ip: string): string[] {
  const forms = [ip];
  if (ipaddr.IPv6.isValid(ip) && !ipaddr.IPv4.isValid(ip))
    forms.push(ipaddr.IPv6.parse(ip).toString());
  forms.push(...forms.map(anonymiseIp));
  return [...new Set(forms)];
}

/**
 * The stored address and user agent of a visitor's conversion records, paired, in each spelling a
 * click may hold the address in: the clicks of the same visitor (as attribution finds them).
 */
export function visitorPairs(records: FoundConversion[]): [string, string][] {
  const pairs = new Map<string, [string, string]>();
  for (const { ip, user_agent: agent } of records) {
    if (!ip || !agent) continue;
    for (const form of addressForms(ip)) pairs.set(`${form}\t${agent}`, [form, agent]);
  }
  return [...pairs.values()];
}

/**
 * How long a sharer's erasure waits, after every process has dropped the links' stamps, before
 * blanking again the events stored meanwhile with stamps read before (a batch of clicks is stored
 * within this of reading its stamps).
 */
export const STAMPS_SETTLE_MS = 2_000;

/** Adds the rows of a second pass to the first's, table by table. */
function addRows(rows: AnalyticsRows, more: AnalyticsRows): void {
  for (const [table, n] of Object.entries(more)) rows[table] = (rows[table] ?? 0) + n;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Erasure (docs/api.md, "Erasure"): a visitor's or a sharer's personal fields blanked in both
 * stores before the answer, the analytics store first (its mutations can be run again: a retry
 * after a failure finds in PostgreSQL what it found before), then PostgreSQL in one transaction
 * with the audit row. Nothing is deleted: counts and statistics stay as they were.
 */
@Injectable()
export class ErasureService {
  constructor(
    private readonly repository: ErasureRepository,
    private readonly analytics: ErasureAnalytics,
    private readonly mirror: LinkMirror,
    private readonly invalidation: InvalidationBus,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** Erases what `target` names in the project, and answers the receipt (kept in the audit). */
  async erase(project: ProjectEntity, target: ErasureTarget): Promise<ErasureRow> {
    return VISITOR_KINDS.includes(target.kind)
      ? this.eraseVisitor(project, target)
      : this.eraseSharer(project, target);
  }

  /** The project's erasures, newest first. */
  list(project: ProjectEntity, limit: number, offset: number) {
    return this.repository.list(project.id, limit, offset);
  }

  /**
   * A visitor: the conversion records of the session, clicker or address; in the analytics store
   * the clicks they were attributed to, the clicks of the same stored address and user agent, and
   * (by address) every click stored with the address.
   */
  private async eraseVisitor(project: ProjectEntity, target: ErasureTarget): Promise<ErasureRow> {
    const kind = target.kind as 'session_id' | 'clicker_id' | 'ip';
    const ips = kind === 'ip' ? addressForms(target.value) : [];
    const found = await this.repository.conversionsOf(
      project.id,
      kind,
      kind === 'ip' ? ips : [target.value],
      ERASURE_CAP + 1,
    );
    const records = found.slice(0, ERASURE_CAP);
    const clickIds = [
      ...new Set(
        records.map((r) => r.redirection_id).filter((id): id is string => UUID.test(id ?? '')),
      ),
    ];
    const pairs = visitorPairs(records);
    const analytics = await this.analytics.blankVisitor(project.id, { clickIds, ips, pairs });
    const ids = records.map((r) => r.id);
    return this.repository.transaction(async (manager) => {
      const postgresql = {
        conversions:
          ids.length > 0 ? await this.repository.blankConversions(manager, project.id, { ids }) : 0,
        clicks: await this.repository.blankLegacyClicks(manager, project.id, {
          clickIds,
          ips,
          pairs,
          links: [],
        }),
        ...(await this.repository.blankEvents(manager, project.id, ids, [])),
      };
      return this.audit(
        manager,
        project,
        target,
        { postgresql, analytics },
        found.length <= ERASURE_CAP,
      );
    });
  }

  /**
   * A sharer (by sharer_id or user_id): their identity on the project's links, in both stores and
   * in the events' stamps, and the visitor fields of those links' clicks and conversion records.
   * The links get a new version, mirrored as an update is: events stamped before are grouped by
   * the blanked attributes.
   */
  private async eraseSharer(project: ProjectEntity, target: ErasureTarget): Promise<ErasureRow> {
    const kind = target.kind as 'sharer_id' | 'user_id';
    const found = await this.repository.linksOf(project.id, kind, target.value, ERASURE_CAP + 1);
    const links = found.slice(0, ERASURE_CAP);
    const linkIds = links.map((l) => l.id);
    const svcIds = links.map((l) => l.svc_id);
    const analytics = await this.analytics.blankSharer(project.id, linkIds);
    // Every process drops its kept stamps of these links (LinkStamps): a stamp read from now on
    // holds the blanked attributes. Events stamped before that and stored since are blanked by a
    // second pass, once such a batch is in (STAMPS_SETTLE_MS).
    await this.invalidation.changed('stamps', linkIds);
    if (linkIds.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, STAMPS_SETTLE_MS));
      addRows(analytics, await this.analytics.blankSharer(project.id, linkIds));
    }
    const updatedAt = new Date();
    const receipt = await this.repository.transaction(async (manager) => {
      const postgresql = {
        links:
          linkIds.length > 0
            ? await this.repository.blankLinks(manager, project.id, linkIds, updatedAt)
            : 0,
        // After the links: an identity no link carries any more goes with them.
        user_identities: await this.repository.deleteIdentities(
          manager,
          project.id,
          kind === 'user_id' ? [target.value] : [],
          [...new Set(links.flatMap((l) => (l.user_id ? [l.user_id] : [])))],
        ),
        conversions:
          linkIds.length > 0
            ? await this.repository.blankConversions(manager, project.id, { links: linkIds })
            : 0,
        clicks:
          linkIds.length > 0
            ? await this.repository.blankLegacyClicks(manager, project.id, {
                clickIds: [],
                ips: [],
                pairs: [],
                links: linkIds,
              })
            : 0,
        ...(await this.repository.blankEvents(manager, project.id, [], svcIds)),
      };
      return this.audit(
        manager,
        project,
        target,
        { postgresql, analytics },
        found.length <= ERASURE_CAP,
      );
    });
    if (linkIds.length > 0) {
      const entities = await this.dataSource
        .getRepository(LinkEntity)
        .findBy({ id: In(linkIds), projectId: project.id });
      // A new version, as an update mirrors one: stamps another process read before (it keeps
      // them for STAMP_TTL_MS) are then not fresh, and grouped by the blanked attributes.
      await this.mirror.mirror(entities);
      await this.invalidation.changed('stamps', linkIds);
      // Every instance's redirect caches forget the links' old rows.
      await this.invalidation.changed('link', svcIds);
    }
    return receipt;
  }

  private async audit(
    manager: EntityManager,
    project: ProjectEntity,
    target: ErasureTarget,
    rows: ErasureRows,
    complete: boolean,
  ): Promise<ErasureRow> {
    const row: ErasureRow = {
      id: randomUUID(),
      kind: target.kind,
      rows,
      complete,
      erased_at: new Date(),
    };
    await this.repository.record(manager, project.id, row);
    return row;
  }
}
