import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An administrative application authorised on one subscription (application_key). */
@Entity('applications')
export class ApplicationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  subscriptionId: string;

  @Column('text')
  name: string;

  @Column('char', { length: 64 })
  keyHash: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
