import {
  ExecutionContext,
  SetMetadata,
  UseGuards,
  applyDecorators,
  createParamDecorator,
} from '@nestjs/common';
import { ApiKeys } from '../common/api-security';
import {
  SUBSCRIPTION_KEY_OPTIONS,
  SubscriptionGuard,
  SubscriptionKeyOptions,
  SubscriptionRequest,
} from './subscription.guard';
import { SubscriptionEntity } from './subscription.entity';

/**
 * The endpoint is administration: SubscriptionGuard checks the keys before the handler runs, and
 * the OpenAPI document names the same keys (security schemes subscriptionKey, applicationKey).
 */
export function SubscriptionAuth(options: SubscriptionKeyOptions): MethodDecorator {
  return applyDecorators(
    SetMetadata(SUBSCRIPTION_KEY_OPTIONS, options),
    UseGuards(SubscriptionGuard),
    ApiKeys('subscriptionKey', 'applicationKey'),
    ...(options.application === 'optional' ? [ApiKeys('subscriptionKey')] : []),
  );
}

/** The subscription SubscriptionGuard authenticated; a route without @SubscriptionAuth() has none. */
export const CurrentSubscription = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): SubscriptionEntity => {
    const subscription = ctx.switchToHttp().getRequest<SubscriptionRequest>().subscription;
    if (!subscription) {
      throw new Error('No authenticated subscription: the route lacks @SubscriptionAuth()');
    }
    return subscription;
  },
);
