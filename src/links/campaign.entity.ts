import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A project's campaign: the stub links carry, with the name and description kept from creation. */
@Entity('campaigns')
export class CampaignEntity {
  @PrimaryColumn('uuid')
  projectId: string;

  @PrimaryColumn('text')
  stub: string;

  @Column('text', { nullable: true })
  name: string | null;

  @Column('text', { nullable: true })
  description: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
