import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const ROLES = ['admin', 'sharer', 'viewer'] as const;
export type ProjectRole = (typeof ROLES)[number];

@Entity('project_users')
export class ProjectUserEntity {
  @PrimaryColumn('uuid')
  projectId: string;

  @PrimaryColumn('uuid')
  userId: string;

  @Column('text')
  role: ProjectRole;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
