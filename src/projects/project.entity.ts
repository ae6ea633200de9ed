import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { IpMode } from '../common/ip';
import type { UserAgentMode } from '../common/visitor-storage';

/** 'all' tracks conversions on every redirection; otherwise the listed hostnames. */
export type ConversionDomains = 'all' | string[];

/** goal_1 … goal_10 → display label. */
export type GoalLabels = Partial<Record<string, string>>;

/** Per-project link settings, set through the project creation and update objects. */
export interface ProjectSettings {
  /** Original-URL hostname → redirection pattern (docs/api.md, "Tracked links"). */
  redirection_patterns?: Record<string, string>;
  /** Append utm_campaign, utm_medium, utm_source and utm_content to redirect URLs. */
  utm_parameters?: boolean;
  /**
   * Hosts (each with its subdomains) that links made with the publishable key may lead to, and
   * that its retweet and share destinations may redirect to (docs/api.md, "Keys"). None: the
   * publishable key makes no links.
   */
  publishable_hosts?: string[];
}

@Entity('projects')
export class ProjectEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  subscriptionId: string;

  @Column('text')
  name: string;

  @Column('char', { length: 64 })
  apiKey: string;

  /** `pk_…`: the tracking script's `data-key` (docs/api.md, "Keys"); not a secret. */
  @Column('text')
  publishableKey: string;

  @Column('text')
  defaultDomain: string;

  @Column('boolean', { default: false })
  conversionsEnabled: boolean;

  @Column('jsonb', { default: () => "'[]'::jsonb" })
  conversionDomains: ConversionDomains;

  @Column('jsonb', { default: () => "'{}'::jsonb" })
  goalLabels: GoalLabels;

  @Column('jsonb', { default: () => "'{}'::jsonb" })
  settings: ProjectSettings;

  /** `ip_storage` (docs/api.md, "Addresses"); null: the instance's CLICK_IP. */
  @Column('text', { nullable: true })
  ipStorage: IpMode | null;

  /** `retention_days` (docs/api.md, "Retention"); null: the instance's RETENTION_DAYS. */
  @Column('integer', { nullable: true })
  retentionDays: number | null;

  /** `ua_storage` (docs/api.md, "Addresses"). */
  @Column('text', { default: 'full' })
  uaStorage: UserAgentMode;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @Column('timestamptz', { nullable: true })
  deletedAt: Date | null;
}
