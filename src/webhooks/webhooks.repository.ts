import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { WebhookEntity } from './webhook.entity';

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

/**
 * The administration API's queries on `webhooks` (the delivery log is DeliveryLog's). A webhook is read with its project's API key, and only while that project is
 * live: a destroyed project's webhooks are gone from the API with it.
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
