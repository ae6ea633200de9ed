import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { SubscriptionsService } from './subscriptions.service';

/** On start-up: the first subscription and its keys, printed once; or the BOOTSTRAP_* keys ensured. */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly config: AppConfig,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { bootstrapSubscriptionKey: subscriptionKey, bootstrapApplicationKey: applicationKey } =
      this.config;
    const keys = subscriptionKey && applicationKey ? { subscriptionKey, applicationKey } : null;
    const issued = await this.subscriptions.bootstrap(keys);
    if (keys) {
      this.logger.log('bootstrap subscription and application keys are in place');
      return;
    }
    if (!issued) return;
    const banner = [
      '',
      '================ svc: first start ================',
      'A subscription and an authorised application were created.',
      'Keep these keys: they are shown only now (stored hashed).',
      `  subscription_key: ${issued.subscriptionKey}`,
      `  application_key:  ${issued.applicationKey}`,
      `Open: http://localhost:${this.config.port}/console and sign in with these keys (Administration)`,
      'Try:  curl -X POST localhost:' +
        String(this.config.port) +
        '/projects/list -d subscription_key=... -d application_key=...',
      '==================================================',
      '',
    ].join('\n');
    process.stdout.write(banner);
    this.logger.log(
      { subscriptionId: issued.subscription.id },
      'first subscription created; keys printed to stdout',
    );
  }
}
