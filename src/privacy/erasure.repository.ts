import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { ErasureKind } from './erasure-input';

/** A conversion record an erasure found: its id, its click and the visitor as it stored them. */
export interface FoundConversion {
  id: string;
  redirection_id: string | null;
  ip: string | null;
  user_agent: string | null;
}

/** A link an erasure of its sharer found. */
export interface FoundLink {
  id: string;
  svc_id: string;
  user_id: string | null;
}

/** An erasure as the audit keeps it (docs/api.md, "Erasure"). */
export interface ErasureRow {
  id: string;
  kind: ErasureKind;
  rows: ErasureRows;
  complete: boolean;
  erased_at: Date;
}

/** Rows changed per store and table. */
export interface ErasureRows {
  postgresql: Record<string, number>;
  analytics: Record<string, number>;
}

/** A conversion record's visitor fields, blanked (the `conversions` columns, docs/api.md). */
const CONVERSION_VISITOR_COLUMNS = [
  'ip',
  'user_agent',
  'session_id',
  'clicker_id',
  'href',
  'referrer',
  'language',
  'account_user_id',
];

/** The visitor fields of a conversion.created body (`data.conversion`): the record's, as sent. */
const CONVERSION_EVENT_FIELDS = [
  'account_userid',
  'clicker_id',
  'href',
  'language',
  'referrer',
  'session_id',
];

/** A link's identity fields in PostgreSQL (`links`): its sharer's, blanked by a sharer erasure. */
const LINK_IDENTITY_COLUMNS = [
  'sharer_id',
  'username',
  'service_userid',
  'service_postid',
  'user_id',
];

/** The identity fields of a link.created or link.updated body (`data`: the link record). */
const LINK_EVENT_FIELDS = [...LINK_IDENTITY_COLUMNS, 'user_id_metadata'];

/**
 * `value` (jsonb) with each of `fields` of the object at `path` set to null: the records events
 * carry always have every field (docs/api.md), so the object is merged with them as nulls.
 */
function nulled(value: string, path: string[], fields: string[]): string {
  const nulls = JSON.stringify(Object.fromEntries(fields.map((field) => [field, null])));
  return `jsonb_set(${value}, '{${path.join(',')}}', (${value} #> '{${path.join(',')}}') || '${nulls}'::jsonb)`;
}

/** The event types whose bodies carry personal fields an erasure blanks. */
const ERASED_TYPES = `('conversion.created', 'link.created', 'link.updated')`;

/**
 * Whether an event (jsonb `e`, `prefix` the path to its type and data) is one an erasure names: a
 * conversion.created of a conversion `$2` (ids) or of a link `$3` (svc_ids), or a link.created or
 * link.updated of a link `$3`.
 */
function named(e: string, prefix: string[]): { conversion: string; link: string } {
  const at = (...path: string[]) => `${e} #>> '{${[...prefix, ...path].join(',')}}'`;
  return {
    conversion: `(${at('type')} = 'conversion.created'
      AND (${at('data', 'conversion', 'id')} IN (SELECT unnest($2::text[]))
        OR ${at('data', 'conversion', 'svc_url')} IN (SELECT unnest($3::text[]))))`,
    link: `(${at('type')} IN ('link.created', 'link.updated')
      AND ${at('data', 'svc_id')} IN (SELECT unnest($3::text[])))`,
  };
}

/** The event with the personal fields of what the erasure names set to null; others as they were. */
function erasedEvent(e: string, prefix: string[]): string {
  const { conversion, link } = named(e, prefix);
  return `CASE
    WHEN ${conversion} THEN ${nulled(e, [...prefix, 'data', 'conversion'], CONVERSION_EVENT_FIELDS)}
    WHEN ${link} THEN ${nulled(e, [...prefix, 'data'], LINK_EVENT_FIELDS)}
    ELSE ${e} END`;
}

/** Whether the event is one the erasure names. */
function isNamed(e: string, prefix: string[]): string {
  const { conversion, link } = named(e, prefix);
  return `(${conversion} OR ${link})`;
}

/**
 * What an erasure reads and changes in PostgreSQL (docs/api.md, "Erasure"): the conversion records
 * and links it names, their personal fields, the copies of them in the webhook delivery log and
 * the event outbox, the raw clicks an earlier version kept, and the audit (`erasures`). The tables
 * are owned by other folders (docs/architecture.md, "Table owners"): erasure is the one writer
 * that changes them all, in one transaction.
 */
@Injectable()
export class ErasureRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs `work` in one transaction. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * The project's conversion records of a visitor (session_id, clicker_id, or an address as any of
   * `ips`), at most `limit`, oldest first.
   */
  async conversionsOf(
    projectId: string,
    kind: 'session_id' | 'clicker_id' | 'ip',
    values: string[],
    limit: number,
  ): Promise<FoundConversion[]> {
    const match = kind === 'ip' ? 'ip = ANY($2::inet[])' : `${kind} = ANY($2::text[])`;
    return this.dataSource.query<FoundConversion[]>(
      `SELECT id::text, redirection_id::text, host(ip) AS ip, user_agent FROM conversions
       WHERE project_id = $1 AND ${match}
       ORDER BY converted_at, id LIMIT $3`,
      [projectId, values, limit],
    );
  }

  /** The project's links of a sharer (by sharer_id or user_id), at most `limit`, oldest first. */
  async linksOf(
    projectId: string,
    kind: 'sharer_id' | 'user_id',
    value: string,
    limit: number,
  ): Promise<FoundLink[]> {
    const match = kind === 'sharer_id' ? 'sharer_id = $2::uuid' : 'user_id = $2';
    return this.dataSource.query<FoundLink[]>(
      `SELECT id::text, svc_id, user_id FROM links WHERE project_id = $1 AND ${match}
       ORDER BY id LIMIT $3`,
      [projectId, value, limit],
    );
  }

  /**
   * Blanks the visitor fields of conversion records (by id, or every record of the links), and
   * the session a publishable key's record was deduplicated in (its idempotency scope names it).
   */
  async blankConversions(
    manager: EntityManager,
    projectId: string,
    by: { ids: string[] } | { links: string[] },
  ): Promise<number> {
    const match = 'ids' in by ? 'id = ANY($2::uuid[])' : 'link_id = ANY($2::bigint[])';
    const [, count] = await manager.query<[unknown, number]>(
      `UPDATE conversions SET ${CONVERSION_VISITOR_COLUMNS.map((c) => `${c} = NULL`).join(', ')},
         idempotency_scope = CASE WHEN idempotency_scope LIKE 'session:%' THEN NULL ELSE idempotency_scope END
       WHERE project_id = $1 AND ${match}
         AND (${[...CONVERSION_VISITOR_COLUMNS.map((c) => `${c} IS NOT NULL`), `idempotency_scope LIKE 'session:%'`].join(' OR ')})`,
      [projectId, 'ids' in by ? by.ids : by.links],
    );
    return count;
  }

  /**
   * Blanks the address, user agent and referrer of the raw clicks an earlier version kept in
   * PostgreSQL (read only by analytics:backfill): by click id, stored address, address and user
   * agent together (`pairs`: [ip, user agent]), or link.
   */
  async blankLegacyClicks(
    manager: EntityManager,
    projectId: string,
    by: { clickIds: string[]; ips: string[]; pairs: [string, string][]; links: string[] },
  ): Promise<number> {
    const [, count] = await manager.query<[unknown, number]>(
      `UPDATE clicks SET ip = NULL, user_agent = NULL, referrer = NULL
       WHERE project_id = $1
         AND (click_id = ANY($2::uuid[]) OR ip = ANY($3::inet[]) OR link_id = ANY($4::bigint[])
           OR (host(ip), user_agent) IN (SELECT * FROM unnest($5::text[], $6::text[])))
         AND (ip IS NOT NULL OR user_agent IS NOT NULL OR referrer IS NOT NULL)`,
      [
        projectId,
        by.clickIds,
        by.ips,
        by.links,
        by.pairs.map(([ip]) => ip),
        by.pairs.map(([, agent]) => agent),
      ],
    );
    return count;
  }

  /**
   * Blanks a sharer's identity on links (sharer_id, username, service ids, user_id), and their
   * static fingerprints (made of those values: a static call finds them no more), as version
   * `updatedAt` of each.
   */
  async blankLinks(
    manager: EntityManager,
    projectId: string,
    links: string[],
    updatedAt: Date,
  ): Promise<number> {
    const [, count] = await manager.query<[unknown, number]>(
      `UPDATE links SET ${LINK_IDENTITY_COLUMNS.map((c) => `${c} = NULL`).join(', ')},
         static_key = NULL, updated_at = $3
       WHERE project_id = $1 AND id = ANY($2::bigint[])`,
      [projectId, links, updatedAt],
    );
    return count;
  }

  /**
   * Deletes the identities kept for user_ids of the project (username, icon and profile URLs):
   * `named` whatever links say, `orphaned` once no link of the project carries it any more.
   */
  async deleteIdentities(
    manager: EntityManager,
    projectId: string,
    named: string[],
    orphaned: string[],
  ): Promise<number> {
    if (named.length === 0 && orphaned.length === 0) return 0;
    const [, count] = await manager.query<[unknown, number]>(
      `DELETE FROM user_identities i WHERE i.project_id = $1
         AND (i.user_id = ANY($2::text[])
           OR (i.user_id = ANY($3::text[])
             AND NOT EXISTS (SELECT 1 FROM links l WHERE l.project_id = $1 AND l.user_id = i.user_id)))`,
      [projectId, named, orphaned],
    );
    return count;
  }

  /**
   * Blanks the personal fields of the events kept in the delivery log of the project's webhooks
   * (each body as sent) and in the event outbox: conversion.created of `conversions` (ids) or of
   * `links` (svc_ids), link.created and link.updated of `links`. Answers the rows changed.
   */
  async blankEvents(
    manager: EntityManager,
    projectId: string,
    conversions: string[],
    links: string[],
  ): Promise<{ webhook_delivery_log: number; event_outbox: number }> {
    if (conversions.length === 0 && links.length === 0)
      return { webhook_delivery_log: 0, event_outbox: 0 };
    const params = [projectId, conversions, links];
    // Only the bodies of the types that carry such fields are read as JSON.
    const [, log] = await manager.query<[unknown, number]>(
      `UPDATE webhook_delivery_log l
       SET bodies = ARRAY(
         SELECT CASE WHEN b IS NULL OR t NOT IN ${ERASED_TYPES} THEN b
                ELSE (${erasedEvent('b::jsonb', [])})::text END
         FROM unnest(l.event_types, l.bodies) WITH ORDINALITY AS u(t, b, i) ORDER BY i)
       WHERE l.webhook_id IN (SELECT id FROM webhooks WHERE project_id = $1)
         AND l.event_types && ARRAY${ERASED_TYPES.replace('(', '[').replace(')', ']')}
         AND EXISTS (
           SELECT 1 FROM unnest(l.event_types, l.bodies) AS u(t, b)
           WHERE b IS NOT NULL AND t IN ${ERASED_TYPES} AND ${isNamed('b::jsonb', [])})`,
      params,
    );
    const [, outbox] = await manager.query<[unknown, number]>(
      `UPDATE event_outbox o
       SET events = (
         SELECT json_agg(${erasedEvent('e', ['event'])} ORDER BY i)
         FROM jsonb_array_elements(o.events::jsonb) WITH ORDINALITY AS x(e, i))
       WHERE EXISTS (
         SELECT 1 FROM jsonb_array_elements(o.events::jsonb) AS x(e)
         WHERE e->>'projectId' = $1::text AND ${isNamed('e', ['event'])})`,
      params,
    );
    return { webhook_delivery_log: log, event_outbox: outbox };
  }

  /** Keeps the erasure in the audit. */
  async record(manager: EntityManager, projectId: string, erasure: ErasureRow): Promise<void> {
    await manager.query(
      `INSERT INTO erasures (id, project_id, kind, rows, complete, erased_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6)`,
      [
        erasure.id,
        projectId,
        erasure.kind,
        JSON.stringify(erasure.rows),
        erasure.complete,
        erasure.erased_at,
      ],
    );
  }

  /** The project's erasures, newest first: a page of them and how many there are. */
  async list(
    projectId: string,
    limit: number,
    offset: number,
  ): Promise<{ erasures: ErasureRow[]; total: number }> {
    const erasures = await this.dataSource.query<ErasureRow[]>(
      `SELECT id::text, kind, rows, complete, erased_at FROM erasures
       WHERE project_id = $1 ORDER BY erased_at DESC, id LIMIT $2 OFFSET $3`,
      [projectId, limit, offset],
    );
    const [{ total }] = await this.dataSource.query<{ total: string }[]>(
      `SELECT count(*)::text AS total FROM erasures WHERE project_id = $1`,
      [projectId],
    );
    return { erasures, total: Number(total) };
  }
}
