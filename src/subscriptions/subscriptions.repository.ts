import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ApplicationEntity } from './application.entity';
import { SubscriptionEntity } from './subscription.entity';

/** What holds a key: a subscription (subscription_key) or an application (application_key). */
export type KeyHolder = 'subscription' | 'application';

@Injectable()
export class SubscriptionsRepository {
  constructor(
    @InjectRepository(SubscriptionEntity)
    private readonly subscriptions: Repository<SubscriptionEntity>,
    @InjectRepository(ApplicationEntity)
    private readonly applications: Repository<ApplicationEntity>,
  ) {}

  /** Uses uq_subscriptions_key_hash. */
  findSubscriptionByKeyHash(keyHash: string): Promise<SubscriptionEntity | null> {
    return this.subscriptions.findOneBy({ keyHash });
  }

  /** Uses uq_applications_key_hash. */
  findApplicationByKeyHash(keyHash: string): Promise<ApplicationEntity | null> {
    return this.applications.findOneBy({ keyHash });
  }

  findSubscriptionById(id: string, manager?: EntityManager): Promise<SubscriptionEntity | null> {
    return this.repo(SubscriptionEntity, manager).findOneBy({ id });
  }

  findApplicationById(id: string, manager?: EntityManager): Promise<ApplicationEntity | null> {
    return this.repo(ApplicationEntity, manager).findOneBy({ id });
  }

  countSubscriptions(manager?: EntityManager): Promise<number> {
    return this.repo(SubscriptionEntity, manager).count();
  }

  listSubscriptions(): Promise<SubscriptionEntity[]> {
    return this.subscriptions.find({ order: { createdAt: 'ASC' } });
  }

  listApplications(subscriptionId: string): Promise<ApplicationEntity[]> {
    return this.applications.find({ where: { subscriptionId }, order: { createdAt: 'ASC' } });
  }

  insertSubscription(
    name: string,
    keyHash: string,
    manager?: EntityManager,
  ): Promise<SubscriptionEntity> {
    const repo = this.repo(SubscriptionEntity, manager);
    return repo.save(repo.create({ name, keyHash }));
  }

  insertApplication(
    subscriptionId: string,
    name: string,
    keyHash: string,
    manager?: EntityManager,
  ): Promise<ApplicationEntity> {
    const repo = this.repo(ApplicationEntity, manager);
    return repo.save(repo.create({ subscriptionId, name, keyHash }));
  }

  async updateKeyHash(holder: KeyHolder, id: string, keyHash: string): Promise<void> {
    const table = holder === 'subscription' ? SubscriptionEntity : ApplicationEntity;
    await this.repo(table).update({ id }, { keyHash });
  }

  /** Serialises first-start bootstrapping across processes (api and worker start together). */
  async lockBootstrap(manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock($1)', [7_361_245_002]);
  }

  private repo<T extends SubscriptionEntity | ApplicationEntity>(
    entity: new () => T,
    manager?: EntityManager,
  ): Repository<T> {
    if (manager) return manager.getRepository(entity);
    return (entity === (SubscriptionEntity as unknown)
      ? this.subscriptions
      : this.applications) as unknown as Repository<T>;
  }
}
