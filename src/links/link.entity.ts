import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('links')
export class LinkEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column('uuid')
  projectId: string;

  @Column('text')
  svcId: string;

  @Column('text')
  domain: string;

  @Column('text')
  path: string;

  @Column('text')
  originalUrl: string;

  @Column('text')
  redirectUrl: string;

  @Column('text', { nullable: true })
  channel: string | null;

  @Column('text', { nullable: true })
  service: string | null;

  @Column('text')
  tool: string;

  @Column('text')
  application: string;

  @Column('text', { nullable: true })
  parent: string | null;

  @Column('uuid', { nullable: true })
  sharerId: string | null;

  @Column('text', { nullable: true })
  username: string | null;

  @Column('text', { nullable: true })
  serviceUserid: string | null;

  @Column('text', { nullable: true })
  servicePostid: string | null;

  @Column('bigint', { nullable: true })
  servicePostidReach: string | null;

  @Column('timestamptz', { nullable: true })
  servicePostidSharedAt: Date | null;

  @Column('text', { nullable: true })
  campaign: string | null;

  @Column('text', { nullable: true })
  userId: string | null;

  @Column('text', { nullable: true })
  tag: string | null;

  @Column('text', { array: true, nullable: true, name: 'tag_2' })
  tag2: string[] | null;

  @Column('text', { array: true, nullable: true, name: 'tag_3' })
  tag3: string[] | null;

  @Column('text', { array: true, nullable: true, name: 'tag_4' })
  tag4: string[] | null;

  @Column('text', { array: true, nullable: true, name: 'tag_5' })
  tag5: string[] | null;

  @Column('text', { nullable: true })
  notes: string | null;

  @Column('char', { length: 64, nullable: true })
  staticKey: string | null;

  @Column('timestamptz', { default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { default: () => 'now()' })
  updatedAt: Date;
}
