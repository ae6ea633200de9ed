import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** A custom link domain connected to a subscription; `hostname` may carry one `_segment`. */
@Entity('domains')
export class DomainEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  subscriptionId: string;

  @Column('text')
  hostname: string;

  @Column('text')
  rootRedirect: string;

  @Column('text')
  notFoundRedirect: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
