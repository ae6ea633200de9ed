import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A customer account: owns projects and domains. Its key is stored only as a SHA-256 hash. */
@Entity('subscriptions')
export class SubscriptionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  @Column('char', { length: 64 })
  keyHash: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
