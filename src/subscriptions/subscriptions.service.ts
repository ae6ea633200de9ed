import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError, ErrorCode, Errors } from '../common/app-error';
import { ApplicationEntity } from './application.entity';
import { generateSecretKey, hashKey, keyMatches } from './keys';
import { SubscriptionEntity } from './subscription.entity';
import { KeyHolder, SubscriptionsRepository } from './subscriptions.repository';

export interface AdminCredentials {
  subscription_key?: unknown;
  application_key?: unknown;
}

export interface IssuedSubscription {
  subscription: SubscriptionEntity;
  subscriptionKey: string;
  application: ApplicationEntity;
  applicationKey: string;
}

@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly repository: SubscriptionsRepository,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * The subscription the administrative caller acts for (SubscriptionGuard asks). subscription_key
   * is always required; application_key is required where docs/api.md ("Administration") lists it
   * and, when given elsewhere, must be an application authorised on that subscription.
   */
  async authenticate(
    credentials: AdminCredentials,
    requireApplication: boolean,
  ): Promise<SubscriptionEntity> {
    const subscriptionKey = this.readKey(credentials.subscription_key, 'subscription_key');
    if (subscriptionKey === null) throw Errors.missing('subscription_key');
    const subscription = await this.repository.findSubscriptionByKeyHash(hashKey(subscriptionKey));
    if (!subscription || !keyMatches(subscriptionKey, subscription.keyHash)) {
      throw new AppError(403, ErrorCode.invalidKey, 'Invalid API key specified (subscription_key)');
    }
    const applicationKey = this.readKey(credentials.application_key, 'application_key');
    if (applicationKey === null) {
      if (requireApplication) throw Errors.missing('application_key');
      return subscription;
    }
    const application = await this.repository.findApplicationByKeyHash(hashKey(applicationKey));
    if (
      !application ||
      !keyMatches(applicationKey, application.keyHash) ||
      application.subscriptionId !== subscription.id
    ) {
      throw new AppError(403, ErrorCode.invalidKey, 'Invalid API key specified (application_key)');
    }
    return subscription;
  }

  /** A new subscription with one authorised application; keys are returned once, stored hashed. */
  async createSubscription(
    name: string,
    keys: { subscriptionKey?: string; applicationKey?: string } = {},
  ): Promise<IssuedSubscription> {
    return this.dataSource.transaction(async (manager) => {
      const subscriptionKey = keys.subscriptionKey ?? generateSecretKey();
      const applicationKey = keys.applicationKey ?? generateSecretKey();
      const subscription = await this.repository.insertSubscription(
        name,
        hashKey(subscriptionKey),
        manager,
      );
      const application = await this.repository.insertApplication(
        subscription.id,
        `${name} admin`,
        hashKey(applicationKey),
        manager,
      );
      return { subscription, subscriptionKey, application, applicationKey };
    });
  }

  async createApplication(
    subscriptionId: string,
    name: string,
  ): Promise<{ application: ApplicationEntity; applicationKey: string }> {
    if (!(await this.repository.findSubscriptionById(subscriptionId))) {
      throw Errors.notFound(`No subscription ${subscriptionId}`);
    }
    const applicationKey = generateSecretKey();
    const application = await this.repository.insertApplication(
      subscriptionId,
      name,
      hashKey(applicationKey),
    );
    return { application, applicationKey };
  }

  /** Issues a new key to a subscription or an application; the old one stops working at once. */
  async rotateKey(holder: KeyHolder, id: string): Promise<string> {
    const found =
      holder === 'subscription'
        ? await this.repository.findSubscriptionById(id)
        : await this.repository.findApplicationById(id);
    if (!found) throw Errors.notFound(`No ${holder} ${id}`);
    const key = generateSecretKey();
    await this.repository.updateKeyHash(holder, id, hashKey(key));
    return key;
  }

  listSubscriptions(): Promise<SubscriptionEntity[]> {
    return this.repository.listSubscriptions();
  }

  async listApplications(subscriptionId: string): Promise<ApplicationEntity[]> {
    if (!(await this.repository.findSubscriptionById(subscriptionId))) {
      throw Errors.notFound(`No subscription ${subscriptionId}`);
    }
    return this.repository.listApplications(subscriptionId);
  }

  /**
   * First start. With BOOTSTRAP_* keys: makes sure a subscription and an application with exactly
   * those keys exist (nothing is created twice). Without them: when no subscription exists yet,
   * creates one with an application and returns the new keys for printing; otherwise null.
   */
  async bootstrap(
    keys: { subscriptionKey: string; applicationKey: string } | null,
  ): Promise<IssuedSubscription | null> {
    return this.dataSource.transaction(async (manager) => {
      await this.repository.lockBootstrap(manager);
      if (keys) {
        const subscriptionHash = hashKey(keys.subscriptionKey);
        const applicationHash = hashKey(keys.applicationKey);
        let subscription = await manager.findOneBy(SubscriptionEntity, {
          keyHash: subscriptionHash,
        });
        subscription ??= await this.repository.insertSubscription(
          'bootstrap',
          subscriptionHash,
          manager,
        );
        const application = await manager.findOneBy(ApplicationEntity, {
          keyHash: applicationHash,
        });
        if (application && application.subscriptionId !== subscription.id) {
          throw new Error(
            'BOOTSTRAP_APPLICATION_KEY belongs to another subscription than BOOTSTRAP_SUBSCRIPTION_KEY',
          );
        }
        if (!application) {
          await this.repository.insertApplication(
            subscription.id,
            'bootstrap admin',
            applicationHash,
            manager,
          );
        }
        return null;
      }
      if ((await this.repository.countSubscriptions(manager)) > 0) return null;
      const subscriptionKey = generateSecretKey();
      const applicationKey = generateSecretKey();
      const subscription = await this.repository.insertSubscription(
        'default',
        hashKey(subscriptionKey),
        manager,
      );
      const application = await this.repository.insertApplication(
        subscription.id,
        'default admin',
        hashKey(applicationKey),
        manager,
      );
      return { subscription, subscriptionKey, application, applicationKey };
    });
  }

  private readKey(value: unknown, parameter: string): string | null {
    if (value === undefined || value === null || value === '') return null;
    if (typeof value !== 'string') throw Errors.invalid(parameter, 'must be a single string');
    return value;
  }
}
