import { CanActivate, ExecutionContext, Injectable, Type, ValidationPipe } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { requestParams } from '../common/params.decorator';
import { createValidationPipe } from '../common/validation';
import { SubscriptionEntity } from './subscription.entity';
import { SubscriptionsService } from './subscriptions.service';

/** How an administration endpoint takes its keys (SubscriptionAuth). */
export interface SubscriptionKeyOptions {
  /**
   * `required` on show, list, destroy and every domain operation; `optional` on project new and
   * update, where a given application_key must still be one of the subscription's (docs/api.md,
   * "Administration").
   */
  application: 'required' | 'optional';
  /**
   * The route's parameters DTO: validated before the keys are checked, so that a malformed
   * parameter is answered as the validation pipe answers it, before a key is looked at.
   */
  params?: Type;
}

/** A request once SubscriptionGuard has let it through. */
export interface SubscriptionRequest extends Request {
  subscription?: SubscriptionEntity;
}

export const SUBSCRIPTION_KEY_OPTIONS = 'svc:subscription-key';

/**
 * The one way into administration: checks subscription_key and application_key and puts the
 * subscription on the request; its refusals are the admin errors (code 1000, 1001, 1002) with the
 * request echo, the filter choosing that shape by path.
 */
@Injectable()
export class SubscriptionGuard implements CanActivate {
  private readonly validation: ValidationPipe = createValidationPipe();

  constructor(
    private readonly reflector: Reflector,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const options = this.reflector.get<SubscriptionKeyOptions | undefined>(
      SUBSCRIPTION_KEY_OPTIONS,
      context.getHandler(),
    ) ?? { application: 'required' };
    const req = context.switchToHttp().getRequest<SubscriptionRequest>();
    const params = requestParams(req);
    if (options.params) {
      await this.validation.transform(params, { type: 'custom', metatype: options.params });
    }
    req.subscription = await this.subscriptions.authenticate(
      params,
      options.application === 'required',
    );
    return true;
  }
}
