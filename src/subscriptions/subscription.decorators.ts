import {
  ExecutionContext,
  SetMetadata,
  UseGuards,
  applyDecorators,
  createParamDecorator,
} from '@nestjs/common';
import {
  SUBSCRIPTION_KEY_OPTIONS,
  SubscriptionGuard,
  SubscriptionKeyOptions,
  SubscriptionRequest,
} from './subscription.guard';
import { SubscriptionEntity } from './subscription.entity';

/** The endpoint is administration: SubscriptionGuard checks the keys before the handler runs. */
export function SubscriptionAuth(options: SubscriptionKeyOptions): MethodDecorator {
  return applyDecorators(
    SetMetadata(SUBSCRIPTION_KEY_OPTIONS, options),
    UseGuards(SubscriptionGuard),
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
