import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Errors } from '../common/app-error';
import { parseJsonObject } from '../common/json-parameter';
import { Paging, RawParams, readPaging, single } from '../common/params';
import { AppConfig } from '../config/app-config';
import { LinkLookupsService } from '../links/link-lookups.service';
import { ProjectLookupsService } from '../projects/project-lookups.service';
import type { ProjectEntity } from '../projects/project.entity';
import { InvalidationBus } from '../queue/invalidation-bus';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { generateSecret } from './signature';
import { DeliveryLog, DeliveryRow } from './delivery-log';
import {
  CREATE_FIELDS,
  MAX_WEBHOOKS_PER_PROJECT,
  UPDATE_FIELDS,
  isWebhookId,
  parseBoolean,
  parseDescription,
  parseEvents,
  parseLinks,
  parseProjectKey,
  parseUrlText,
  rejectUnknownFields,
} from './webhook-input';
import { checkWebhookUrl } from './webhook-url';
import { WebhookEntity } from './webhook.entity';
import { WebhookChanges, WebhookRow, WebhooksRepository } from './webhooks.repository';

/** Administration parameters besides the keys (SubscriptionGuard's). */
export interface WebhookParams {
  /** new and update: the webhook creation or update object. */
  json?: unknown;
  /** list: only this project's webhooks (its API key). */
  project?: unknown;
}

/**
 * A webhook as the administration API shows it (docs/api.md, "Administration of webhooks"): with
 * its project's API key and the svc_ids of the links it is limited to.
 */
export interface WebhookView {
  webhook: WebhookEntity;
  project: string;
  links: string[] | null;
}

/** A page of a webhook's delivery log, newest first. */
export interface DeliveryPage extends Paging {
  deliveries: DeliveryRow[];
  total: number;
}

/** How long the secret before a rotation still signs deliveries. */
export const PREVIOUS_SECRET_HOURS = 24;

@Injectable()
export class WebhooksService {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly projects: ProjectLookupsService,
    private readonly links: LinkLookupsService,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly bus: InvalidationBus,
    private readonly deliveryLog: DeliveryLog,
  ) {}

  /**
   * The subscription's webhook with this id, or 404: an unknown id, a malformed one and another
   * subscription's webhook alike (whether it exists elsewhere is never told).
   */
  async find(subscription: SubscriptionEntity, id: string): Promise<WebhookEntity> {
    return (await this.getOwned(subscription, id)).webhook;
  }

  /** The subscription's webhooks, oldest first; `project` keeps one project's. */
  async list(subscription: SubscriptionEntity, params: WebhookParams): Promise<WebhookView[]> {
    const key = single(params as RawParams, 'project', 200);
    const project = key === undefined ? null : await this.getProject(subscription, key, 'project');
    return this.views(await this.repository.list(subscription.id, project?.id ?? null));
  }

  async show(subscription: SubscriptionEntity, id: string): Promise<WebhookView> {
    const [view] = await this.views([await this.getOwned(subscription, id)]);
    return view;
  }

  /** Makes a webhook in a project of the subscription, with a new secret. */
  async create(subscription: SubscriptionEntity, json: unknown): Promise<WebhookView> {
    const input = parseJsonObject(json);
    rejectUnknownFields(input, CREATE_FIELDS, 'the webhook creation object');
    const projectKey = parseProjectKey(input.project);
    const url = await this.checkUrl(parseUrlText(input.url));
    const events = parseEvents(input.events);
    const description = parseDescription(input.description);
    const svcIds = parseLinks(input.links);
    const pageviews =
      input.pageviews === undefined ? false : parseBoolean(input.pageviews, 'json.pageviews');
    const project = await this.getProject(subscription, projectKey, 'json.project');
    const linkIds = await this.linkIds(project.id, svcIds);

    const id = await this.dataSource.transaction(async (manager) => {
      await this.repository.lockProject(project.id, manager);
      if ((await this.repository.countByProject(project.id, manager)) >= MAX_WEBHOOKS_PER_PROJECT) {
        throw Errors.invalid(
          'json.project',
          `project ${project.name} already has ${MAX_WEBHOOKS_PER_PROJECT} webhooks, the most a project may have; destroy one first`,
        );
      }
      return this.repository.insert(
        {
          subscriptionId: subscription.id,
          projectId: project.id,
          url,
          events,
          description,
          linkIds,
          pageviews,
          secret: generateSecret(),
        },
        manager,
      );
    });
    await this.bus.changed('webhooks', [project.id]);
    return this.show(subscription, id);
  }

  /**
   * Changes only the given fields. `enabled: true` re-enables (and forgets why it was disabled and
   * since when it failed); `enabled: false` disables it by hand.
   */
  async update(subscription: SubscriptionEntity, id: string, json: unknown): Promise<WebhookView> {
    const input = parseJsonObject(json);
    rejectUnknownFields(input, UPDATE_FIELDS, 'the webhook update object');
    const { webhook } = await this.getOwned(subscription, id);
    const changes: WebhookChanges = {};
    if ('url' in input) changes.url = await this.checkUrl(parseUrlText(input.url));
    if ('events' in input) changes.events = parseEvents(input.events);
    if ('description' in input) changes.description = parseDescription(input.description);
    if ('links' in input) {
      changes.linkIds = await this.linkIds(webhook.projectId, parseLinks(input.links));
    }
    if ('pageviews' in input) changes.pageviews = parseBoolean(input.pageviews, 'json.pageviews');
    if ('enabled' in input) {
      changes.enabled = parseBoolean(input.enabled, 'json.enabled');
      changes.disabledReason = changes.enabled ? null : 'manual';
      // Enabled again: the breaker starts afresh (docs/api.md, "Events and their delivery").
      if (changes.enabled) {
        changes.failingSince = null;
        changes.recentOutcomes = '';
      }
    }
    await this.dataSource.transaction(async (manager) => {
      // Destroyed meanwhile: not found, as it would be now.
      await this.getOwned(subscription, id, manager);
      await this.repository.update(id, changes, manager);
    });
    await this.bus.changed('webhooks', [webhook.projectId]);
    return this.show(subscription, id);
  }

  /** Deletes the webhook and its delivery log (fk_webhook_deliveries_webhook). */
  async destroy(subscription: SubscriptionEntity, id: string): Promise<void> {
    const projectId = await this.dataSource.transaction(async (manager) => {
      const { webhook } = await this.getOwned(subscription, id, manager);
      await this.repository.delete(id, manager);
      return webhook.projectId;
    });
    await this.bus.changed('webhooks', [projectId]);
  }

  /**
   * A new secret. The current one becomes the previous secret and still signs for
   * PREVIOUS_SECRET_HOURS, so the receiver may switch at its own pace; a rotation within that time
   * drops the secret before the current one.
   */
  async rotateSecret(subscription: SubscriptionEntity, id: string): Promise<WebhookView> {
    const projectId = await this.dataSource.transaction(async (manager) => {
      const { webhook } = await this.getOwned(subscription, id, manager);
      await this.repository.rotateSecret(id, generateSecret(), PREVIOUS_SECRET_HOURS, manager);
      return webhook.projectId;
    });
    await this.bus.changed('webhooks', [projectId]);
    return this.show(subscription, id);
  }

  /** A page of the webhook's delivery log, newest first (`page`, `per_page`, `offset`). */
  async deliveries(
    subscription: SubscriptionEntity,
    id: string,
    params: RawParams,
  ): Promise<DeliveryPage> {
    const paging = readPaging(params);
    const { webhook } = await this.getOwned(subscription, id);
    const [deliveries, total] = await this.deliveryLog.page(
      webhook.id,
      paging.perPage,
      paging.offset,
    );
    return { ...paging, deliveries, total };
  }

  private async getOwned(
    subscription: SubscriptionEntity,
    id: string,
    manager?: EntityManager,
  ): Promise<WebhookRow> {
    const row = isWebhookId(id)
      ? await this.repository.findOwned(subscription.id, id.toLowerCase(), manager)
      : null;
    if (!row) throw Errors.notFound(`Webhook not found: ${id}`);
    return row;
  }

  /**
   * A live project of this subscription by API key: unknown or destroyed → 404, another
   * subscription's → 403 (as the domains API answers for its `projects`).
   */
  private async getProject(
    subscription: SubscriptionEntity,
    apiKey: string,
    parameter: string,
  ): Promise<ProjectEntity> {
    const project = await this.projects.findActiveByApiKey(apiKey);
    if (!project) throw Errors.notFound(`Project not found: ${parameter} ${apiKey}`);
    if (project.subscriptionId !== subscription.id) {
      throw Errors.forbidden(
        `Not permitted: ${parameter} ${apiKey} is a project of another subscription`,
      );
    }
    return project;
  }

  /** The URL once checkWebhookUrl accepts it (https, and an address the SSRF guard lets through). */
  private async checkUrl(url: string): Promise<string> {
    const reason = await checkWebhookUrl(url, {
      allowLoopback: this.config.webhookAllowLoopback,
    });
    if (reason !== null) throw Errors.invalid('json.url', reason);
    return url;
  }

  /** The links' ids in the order given; a svc_id that is not a link of the project is a 400. */
  private async linkIds(projectId: string, svcIds: string[] | null): Promise<string[] | null> {
    if (svcIds === null) return null;
    const ids = await this.links.linkIds(projectId, svcIds);
    return svcIds.map((svcId, index) => {
      const linkId = ids.get(svcId);
      if (linkId === undefined) {
        throw Errors.invalid(`json.links[${index}]`, `${svcId} is not a link of this project`);
      }
      return linkId;
    });
  }

  /** The rows with their links' svc_ids, read in one query for all of them. */
  private async views(rows: WebhookRow[]): Promise<WebhookView[]> {
    const svcIds = await this.links.svcIds(rows.flatMap((row) => row.webhook.linkIds ?? []));
    return rows.map(({ webhook, projectKey }) => ({
      webhook,
      project: projectKey,
      links:
        webhook.linkIds?.flatMap((linkId) => {
          const svcId = svcIds.get(String(linkId));
          return svcId === undefined ? [] : [svcId];
        }) ?? null,
    }));
  }
}
