import { Entity } from 'typeorm';
import { KeyHolderEntity } from './key-holder.entity';

/** A customer account: owns projects and domains. Its key is stored only as a SHA-256 hash. */
@Entity('subscriptions')
export class SubscriptionEntity extends KeyHolderEntity {}
