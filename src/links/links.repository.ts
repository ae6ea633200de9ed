import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CONTROL_COLUMNS, columnValue, readControlColumns } from './controls/link-control-columns';
import { LinkEntity } from './link.entity';

/**
 * A link row to insert (ids and timestamps come from the database; `createdAt` only for an
 * imported link, which keeps its source's date).
 */
export type NewLink = Omit<LinkEntity, 'id' | 'createdAt' | 'updatedAt'> & { createdAt?: Date };

/**
 * The metadata that makes two links of a project's url the same link (static; docs/api.md,
 * "Tracked links"), in the order of the static fingerprint: property, column and its SQL type.
 */
export const LINK_METADATA: [keyof NewLink, string, string][] = [
  ['tool', 'tool', 'text'],
  ['channel', 'channel', 'text'],
  ['campaign', 'campaign', 'text'],
  ['tag', 'tag', 'text'],
  ['notes', 'notes', 'text'],
  ['parent', 'parent', 'text'],
  ['sharerId', 'sharer_id', 'uuid'],
  ['serviceUserid', 'service_userid', 'text'],
  ['servicePostid', 'service_postid', 'text'],
  ['userId', 'user_id', 'text'],
  ['tag2', 'tag_2', 'text[]'],
  ['tag3', 'tag_3', 'text[]'],
  ['tag4', 'tag_4', 'text[]'],
  ['tag5', 'tag_5', 'text[]'],
];

const LINK_COLUMNS: [keyof NewLink, string][] = [
  ['projectId', 'project_id'],
  ['svcId', 'svc_id'],
  ['domain', 'domain'],
  ['path', 'path'],
  ['originalUrl', 'original_url'],
  ['redirectUrl', 'redirect_url'],
  ['channel', 'channel'],
  ['service', 'service'],
  ['tool', 'tool'],
  ['application', 'application'],
  ['parent', 'parent'],
  ['sharerId', 'sharer_id'],
  ['username', 'username'],
  ['serviceUserid', 'service_userid'],
  ['servicePostid', 'service_postid'],
  ['servicePostidReach', 'service_postid_reach'],
  ['servicePostidSharedAt', 'service_postid_shared_at'],
  ['campaign', 'campaign'],
  ['userId', 'user_id'],
  ['tag', 'tag'],
  ['tag2', 'tag_2'],
  ['tag3', 'tag_3'],
  ['tag4', 'tag_4'],
  ['tag5', 'tag_5'],
  ['notes', 'notes'],
  ['staticKey', 'static_key'],
  ['importedClicks', 'imported_clicks'],
  ...CONTROL_COLUMNS,
];

type Raw = Record<string, unknown>;

function toLink(raw: Raw): LinkEntity {
  const link = new LinkEntity();
  link.id = String(raw.id);
  for (const [property, column] of LINK_COLUMNS) {
    (link as unknown as Raw)[property] = raw[column] ?? null;
  }
  if (link.importedClicks !== null) link.importedClicks = String(link.importedClicks);
  const reach = raw.service_postid_reach as string | number | null;
  link.servicePostidReach = reach === null ? null : String(reach);
  link.createdAt = new Date(raw.created_at as string | Date);
  link.updatedAt = new Date(raw.updated_at as string | Date);
  if (link.servicePostidSharedAt) link.servicePostidSharedAt = new Date(link.servicePostidSharedAt);
  readChainColumns(raw, link);
  readControlColumns(raw, link);
  return link;
}

/** A row's chain (migration LinkChains): ids as strings, null until it has one. */
export function readChainColumns(raw: Raw, link: LinkEntity): void {
  const ancestors = raw.ancestors as unknown[] | null | undefined;
  link.ancestors = ancestors ? ancestors.map(String) : null;
  const root = raw.root_id as string | number | null | undefined;
  link.rootId = root === null || root === undefined ? null : String(root);
  link.depth = raw.depth === null || raw.depth === undefined ? null : Number(raw.depth);
}

@Injectable()
export class LinksRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private m(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  /**
   * One multi-row INSERT; rows whose domain/path (or static fingerprint) is taken are skipped and
   * not returned, so the caller retries only those. Relies on uq_links_domain_path, uq_links_svc_id
   * and uq_links_static.
   */
  async insertLinks(rows: NewLink[], manager?: EntityManager): Promise<LinkEntity[]> {
    if (rows.length === 0) return [];
    const params: unknown[] = [];
    const tuples = rows.map((row) => {
      const placeholders = LINK_COLUMNS.map(([property]) => {
        params.push(columnValue(property, (row as unknown as Raw)[property]));
        return `$${params.length}`;
      });
      params.push(row.createdAt ?? null);
      placeholders.push(`COALESCE($${params.length}::timestamptz, now())`);
      return `(${placeholders.join(', ')})`;
    });
    const raw: Raw[] = await this.m(manager).query(
      `INSERT INTO links (${LINK_COLUMNS.map(([, c]) => c).join(', ')}, created_at)
       VALUES ${tuples.join(', ')}
       ON CONFLICT DO NOTHING
       RETURNING *`,
      params,
    );
    return raw.map(toLink);
  }

  /** The transaction's start time: what now(), the default of links.created_at, gives in it. */
  async transactionTime(manager: EntityManager): Promise<Date> {
    const raw: { now: Date | string }[] = await manager.query(`SELECT now() AS now`);
    return new Date(raw[0].now);
  }

  /** Uses uq_links_svc_id. */
  async findBySvcId(svcId: string, manager?: EntityManager): Promise<LinkEntity | null> {
    const raw: Raw[] = await this.m(manager).query(`SELECT * FROM links WHERE svc_id = $1`, [
      svcId,
    ]);
    return raw[0] ? toLink(raw[0]) : null;
  }

  /** The links of these svc_ids, whichever projects hold them (uq_links_svc_id). */
  async findBySvcIds(svcIds: string[], manager?: EntityManager): Promise<LinkEntity[]> {
    if (svcIds.length === 0) return [];
    const raw: Raw[] = await this.m(manager).query(
      `SELECT * FROM links WHERE svc_id = ANY($1::text[])`,
      [svcIds],
    );
    return raw.map(toLink);
  }

  /** The link of a svc_id and whether its project is live, as a redirect reads them (uq_links_svc_id, pk_projects). */
  async findWithProjectLive(svcId: string): Promise<{ link: LinkEntity; live: boolean } | null> {
    const raw: Raw[] = await this.dataSource.query(
      `SELECT l.*, p.deleted_at IS NULL AS project_live
       FROM links l JOIN projects p ON p.id = l.project_id WHERE l.svc_id = $1`,
      [svcId],
    );
    return raw[0] ? { link: toLink(raw[0]), live: raw[0].project_live === true } : null;
  }

  /** Uses uq_links_svc_id. */
  async findProjectLinksBySvcIds(
    projectId: string,
    svcIds: string[],
    manager?: EntityManager,
  ): Promise<LinkEntity[]> {
    if (svcIds.length === 0) return [];
    const raw: Raw[] = await this.m(manager).query(
      `SELECT * FROM links WHERE svc_id = ANY($1::text[]) AND project_id = $2`,
      [svcIds, projectId],
    );
    return raw.map(toLink);
  }

  /**
   * The project's links with the same domain, url and metadata (LINK_METADATA; a null is a match
   * only for a null), the same path when one is given, and a password or none as `passwordProtected`
   * says: made through static first, else the oldest, at most `limit` (ix_links_project_url).
   */
  async findSame(
    row: NewLink,
    path: string | null,
    passwordProtected: boolean,
    limit: number,
    manager?: EntityManager,
  ): Promise<LinkEntity[]> {
    const params: unknown[] = [row.projectId, row.originalUrl, row.domain, path, limit];
    const conditions = LINK_METADATA.map(([property, column, type]) => {
      params.push(row[property]);
      return `${column} IS NOT DISTINCT FROM $${params.length}::${type}`;
    });
    const raw: Raw[] = await this.m(manager).query(
      `SELECT * FROM links
       WHERE project_id = $1 AND md5(original_url) = md5($2) AND original_url = $2 AND domain = $3
         AND ($4::text IS NULL OR path = $4) AND ${conditions.join(' AND ')}
         AND password_hash IS ${passwordProtected ? 'NOT NULL' : 'NULL'}
       ORDER BY static_key IS NULL, id LIMIT $5`,
      params,
    );
    return raw.map(toLink);
  }

  /**
   * Holds a transaction-scoped lock on a static fingerprint, so that concurrent identical static
   * requests with a password (whose links hold no shared fingerprint) make one link.
   */
  async lockStatic(projectId: string, staticKey: string, manager?: EntityManager): Promise<void> {
    await this.m(manager).query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `static:${projectId}:${staticKey}`,
    ]);
  }

  /** Uses uq_links_static. */
  async findStatic(
    projectId: string,
    staticKey: string,
    manager?: EntityManager,
  ): Promise<LinkEntity | null> {
    const raw: Raw[] = await this.m(manager).query(
      `SELECT * FROM links WHERE project_id = $1 AND static_key = $2`,
      [projectId, staticKey],
    );
    return raw[0] ? toLink(raw[0]) : null;
  }

  /** Frees a static fingerprint held by a link (uses pk_links); no-op when another took it already. */
  async releaseStaticKey(id: string, staticKey: string, manager?: EntityManager): Promise<void> {
    await this.m(manager).query(
      `UPDATE links SET static_key = NULL WHERE id = $1 AND static_key = $2`,
      [id, staticKey],
    );
  }

  async updateLink(
    id: string,
    changes: Partial<NewLink>,
    manager?: EntityManager,
  ): Promise<LinkEntity> {
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [property, column] of LINK_COLUMNS) {
      if (property in changes) {
        params.push(columnValue(property, (changes as Raw)[property]));
        sets.push(`${column} = $${params.length}`);
      }
    }
    params.push(id);
    const raw: [Raw[], number] | Raw[] = await this.m(manager).query(
      `UPDATE links SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $${params.length} RETURNING *`,
      params,
    );
    const rows = (Array.isArray(raw[0]) ? raw[0] : raw) as Raw[];
    return toLink(rows[0]);
  }

  /** The svc_id of a project's link by id (uses pk_links). */
  async findSvcIdById(projectId: string, id: string): Promise<string | null> {
    const rows: { svc_id: string }[] = await this.m().query(
      `SELECT svc_id FROM links WHERE id = $1 AND project_id = $2`,
      [id, projectId],
    );
    return rows[0]?.svc_id ?? null;
  }

  /** The project's link id by svc_id (uq_links_svc_id), or null. */
  async findIdBySvcId(projectId: string, svcId: string): Promise<string | null> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `SELECT id::text AS id FROM links WHERE svc_id = $1 AND project_id = $2`,
      [svcId, projectId],
    );
    return rows[0]?.id ?? null;
  }

  /** The project's link ids by svc_id (uq_links_svc_id), for the svc_ids that name one of its links. */
  async findIdsBySvcIds(projectId: string, svcIds: string[]): Promise<Map<string, string>> {
    if (svcIds.length === 0) return new Map();
    const rows = await this.dataSource.query<{ id: string; svc_id: string }[]>(
      `SELECT id::text AS id, svc_id FROM links WHERE svc_id = ANY($1::text[]) AND project_id = $2`,
      [svcIds, projectId],
    );
    return new Map(rows.map((row) => [row.svc_id, row.id]));
  }

  /** The svc_ids of the links with these ids (pk_links), by id. */
  async findSvcIdsByIds(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.dataSource.query<{ id: string; svc_id: string }[]>(
      `SELECT id::text AS id, svc_id FROM links WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.svc_id]));
  }

  /**
   * The project's links with imported clicks after link `afterId`, by id, at most `limit` (pk_links
   * in id order; the exports read them a page at a time): id and imported_clicks as text.
   */
  async findImportedClicks(
    projectId: string,
    afterId: string,
    limit: number,
  ): Promise<{ id: string; imported_clicks: string }[]> {
    return this.dataSource.query<{ id: string; imported_clicks: string }[]>(
      `SELECT id::text AS id, imported_clicks::text AS imported_clicks FROM links
       WHERE project_id = $1 AND imported_clicks IS NOT NULL AND id > $2::bigint
       ORDER BY id LIMIT $3`,
      [projectId, afterId, limit],
    );
  }

  /** The metadata statistics show of a link of the projects by svc_id (uq_links_svc_id), or null. */
  async findLinkMetadata(
    projectIds: string[],
    svcId: string,
  ): Promise<{ original_url: string; notes: string | null } | null> {
    const [row] = await this.dataSource.query<{ original_url: string; notes: string | null }[]>(
      `SELECT original_url, notes FROM links WHERE svc_id = $1 AND project_id = ANY($2::uuid[])`,
      [svcId, projectIds],
    );
    return row ? { original_url: row.original_url, notes: row.notes } : null;
  }
}
