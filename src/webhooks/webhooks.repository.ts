import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { DisabledReason, WebhookEntity } from './webhook.entity';

const PROJECT_LOCK = 7_361_247;

/** A webhook with the API key of its (live) project, as the administration API shows it. */
export interface WebhookRow {
  webhook: WebhookEntity;
  projectKey: string;
}

/** What a creation stores; the rest takes the columns' defaults. */
export type NewWebhook = Pick<
  WebhookEntity,
  | 'subscriptionId'
  | 'projectId'
  | 'url'
  | 'events'
  | 'description'
  | 'linkIds'
  | 'pageviews'
  | 'secret'
>;

/** What an update may change. */
export type WebhookChanges = Partial<
  Pick<
    WebhookEntity,
    | 'url'
    | 'events'
    | 'description'
    | 'linkIds'
    | 'pageviews'
    | 'enabled'
    | 'disabledReason'
    | 'failingSince'
    | 'recentOutcomes'
  >
>;

/** A webhook as deliveries need it (WebhookTargets). */
export interface WebhookTarget {
  id: string;
  projectId: string;
  url: string;
  events: ReadonlySet<string>;
  /** The links `link.clicked` is limited to (numeric ids), null for every link. */
  linkIds: ReadonlySet<string> | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  /** Whether `conversion.created` includes pageviews (goals always). */
  pageviews: boolean;
}

interface TargetRow {
  id: string;
  project_id: string;
  url: string;
  events: string[];
  link_ids: string[] | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  pageviews: boolean;
}

const TARGET_COLUMNS =
  'id, project_id, url, events, link_ids, secret, previous_secret, previous_secret_expires_at, pageviews';

/**
 * The queries on `webhooks`, its one writer (the delivery log is DeliveryLog's). The
 * administration API reads a webhook with its project's API key, and only while that project is
 * live: a destroyed project's webhooks are gone from the API with it. Deliveries read webhooks as
 * targets, and note their outcomes (WebhookHealth).
 */
@Injectable()
export class WebhooksRepository {
  constructor(
    @InjectRepository(WebhookEntity) private readonly webhooks: Repository<WebhookEntity>,
  ) {}

  /** The subscription's webhook with this id (pk_webhooks), or null; locked with a manager. */
  async findOwned(
    subscriptionId: string,
    id: string,
    manager?: EntityManager,
  ): Promise<WebhookRow | null> {
    const query = this.withProject(manager).where(
      'w.id = :id AND w.subscription_id = :subscriptionId',
      { id, subscriptionId },
    );
    // FOR UPDATE OF w: update, rotation and destroy of one webhook serialise on its row.
    if (manager) query.setLock('pessimistic_write', undefined, ['w']);
    const [row] = rows(await query.getRawAndEntities());
    return row ?? null;
  }

  /** The subscription's webhooks, of one project or all, oldest first (ix_webhooks_project). */
  async list(subscriptionId: string, projectId: string | null): Promise<WebhookRow[]> {
    const query = this.withProject().where('w.subscription_id = :subscriptionId', {
      subscriptionId,
    });
    if (projectId !== null) query.andWhere('w.project_id = :projectId', { projectId });
    return rows(await query.orderBy('w.created_at', 'ASC').addOrderBy('w.id').getRawAndEntities());
  }

  /**
   * Serialises creations in one project until the transaction ends, so that two at once cannot
   * pass the per-project limit together.
   */
  async lockProject(projectId: string, manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      PROJECT_LOCK,
      projectId,
    ]);
  }

  /** The project's webhooks (ix_webhooks_project). */
  countByProject(projectId: string, manager: EntityManager): Promise<number> {
    return manager.getRepository(WebhookEntity).countBy({ projectId });
  }

  async insert(values: NewWebhook, manager: EntityManager): Promise<string> {
    const repo = manager.getRepository(WebhookEntity);
    const saved = await repo.save(repo.create(values));
    return saved.id;
  }

  /** Changes the given columns and always touches updated_at. */
  async update(id: string, changes: WebhookChanges, manager: EntityManager): Promise<void> {
    await manager
      .getRepository(WebhookEntity)
      .createQueryBuilder()
      .update()
      .set({ ...changes, updatedAt: () => 'now()' })
      .where('id = :id', { id })
      .execute();
  }

  /**
   * A new secret; the current one becomes the previous secret, which still signs for `graceHours`
   * by the database's clock (the one the delivery engine compares against).
   */
  async rotateSecret(
    id: string,
    secret: string,
    graceHours: number,
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `UPDATE webhooks
          SET previous_secret = secret,
              previous_secret_expires_at = now() + make_interval(hours => $3),
              secret = $2,
              updated_at = now()
        WHERE id = $1`,
      [id, secret, graceHours],
    );
  }

  /** Deletes the webhook; its delivery log goes with it (fk_webhook_deliveries_webhook). */
  async delete(id: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(WebhookEntity).delete({ id });
  }

  /** The project's enabled webhooks, as deliveries need them (ix_webhooks_project). */
  async findEnabledTargets(projectId: string): Promise<WebhookTarget[]> {
    const rows: TargetRow[] = await this.webhooks.query(
      `SELECT ${TARGET_COLUMNS} FROM webhooks WHERE project_id = $1 AND enabled`,
      [projectId],
    );
    return rows.map(target);
  }

  /** One webhook as stored now, enabled or not (null when gone). */
  async findTarget(id: string): Promise<(WebhookTarget & { enabled: boolean }) | null> {
    const rows: (TargetRow & { enabled: boolean })[] = await this.webhooks.query(
      `SELECT ${TARGET_COLUMNS}, enabled FROM webhooks WHERE id = $1`,
      [id],
    );
    return rows.length === 0 ? null : { ...target(rows[0]), enabled: rows[0].enabled };
  }

  /**
   * Appends a job's outcomes (`s` a success, `f` a failure, in order) to the webhook's last
   * `window`, in one statement (the row's lock orders concurrent jobs), and sets `failing_since`
   * by the breaker's rule (WebhookHealth): failing while the last outcome is a failure, or while
   * more than half of the window are once it holds `min` of them. The new `failing_since`; null
   * when not failing or gone.
   */
  async noteOutcomes(
    id: string,
    outcomes: string,
    window: number,
    min: number,
  ): Promise<Date | null> {
    // The row's last outcomes with the job's after them. Written out in each place, so that every
    // reference reads the row as locked (a sub-select would read it as of the statement's start).
    const recent = `right(recent_outcomes || $2, ${window})`;
    const rows: { failing_since: Date | null }[] = await this.webhooks.query(
      // A data-modifying statement inside a SELECT: the driver answers its rows, not a count.
      `WITH noted AS (
         UPDATE webhooks SET
           recent_outcomes = ${recent},
           failing_since = CASE
             WHEN right(${recent}, 1) = 'f'
               OR (length(${recent}) >= ${min}
                   AND 2 * (length(${recent}) - length(replace(${recent}, 'f', ''))) > length(${recent}))
             THEN coalesce(failing_since, now()) END
         WHERE id = $1 RETURNING failing_since)
       SELECT failing_since FROM noted`,
      [id, outcomes],
    );
    const since = rows[0]?.failing_since;
    return since ? new Date(since) : null;
  }

  /** Disables the webhook for `reason` unless it is disabled already; whether this call did. */
  async disableIfEnabled(id: string, reason: DisabledReason): Promise<boolean> {
    const rows: unknown[] = await this.webhooks.query(
      `WITH off AS (
         UPDATE webhooks SET enabled = false, disabled_reason = $2, updated_at = now()
         WHERE id = $1 AND enabled RETURNING id)
       SELECT id FROM off`,
      [id, reason],
    );
    return rows.length > 0;
  }

  private withProject(manager?: EntityManager) {
    return (manager ? manager.getRepository(WebhookEntity) : this.webhooks)
      .createQueryBuilder('w')
      .innerJoin('projects', 'p', 'p.id = w.project_id AND p.deleted_at IS NULL')
      .addSelect('p.api_key', 'project_key');
  }
}

/** Entities and their project's key, row by row (getRawAndEntities keeps them in step). */
function rows({
  entities,
  raw,
}: {
  entities: WebhookEntity[];
  raw: { project_key: string }[];
}): WebhookRow[] {
  return entities.map((webhook, index) => ({
    webhook,
    projectKey: raw[index].project_key.trim(),
  }));
}

function target(row: TargetRow): WebhookTarget {
  return {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    events: new Set(row.events),
    linkIds: row.link_ids ? new Set(row.link_ids.map(String)) : null,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: row.previous_secret_expires_at
      ? new Date(row.previous_secret_expires_at)
      : null,
    pageviews: row.pageviews,
  };
}
