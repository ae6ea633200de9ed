import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A link's targeting URLs as redirects serve them: each rule's URL after patterns and UTM. */
export interface RuleRedirects {
  ios?: string;
  android?: string;
  /** Country code (ISO 3166-1 alpha-2, upper case) → URL. */
  geo?: Record<string, string>;
}

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

  // Link controls (docs/api.md, "Link controls"): optional, so that a link read without them (or
  // made before them) is a link without controls; link-controls.ts reads and writes them.

  @Column('timestamptz', { nullable: true })
  expiresAt?: Date | null;

  @Column('integer', { nullable: true })
  maxClicks?: number | null;

  @Column('text', { nullable: true })
  expiredUrl?: string | null;

  @Column('boolean', { default: false })
  disabled?: boolean;

  @Column('text', { nullable: true })
  iosUrl?: string | null;

  @Column('text', { nullable: true })
  androidUrl?: string | null;

  @Column('jsonb', { nullable: true })
  geo?: Record<string, string> | null;

  /** The targeting URLs as redirects serve them (pattern and UTM applied): link-controls.ts. */
  @Column('jsonb', { nullable: true })
  ruleRedirects?: RuleRedirects | null;

  @Column('text', { nullable: true })
  passwordHash?: string | null;

  /**
   * Clicks the shortener a link was imported from had counted (docs/api.md, "Importing links"),
   * as a figure, never as click rows; null for links made here. A bigint: a string, as read.
   */
  @Column('bigint', { nullable: true })
  importedClicks?: string | null;

  // Share chains (docs/api.md, "Share chains"): set by the database from the parent's chain
  // (migration LinkChains), never written by the service; null until backfilled for older links.

  /** The link's ancestors by id, its parent first and its root last; empty for a root. */
  @Column('bigint', { array: true, nullable: true })
  ancestors?: string[] | null;

  /** Its root's id (its own without a parent). */
  @Column('bigint', { nullable: true })
  rootId?: string | null;

  /** Generations below its root (0 for a root). */
  @Column('smallint', { nullable: true })
  depth?: number | null;

  @Column('timestamptz', { default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { default: () => 'now()' })
  updatedAt: Date;
}
