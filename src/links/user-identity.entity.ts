import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The caller's user (user_id) as a project knows it: username, icon and profile URLs. */
@Entity('user_identities')
export class UserIdentityEntity {
  @PrimaryColumn('uuid')
  projectId: string;

  @PrimaryColumn('text')
  userId: string;

  @Column('text', { nullable: true })
  username: string | null;

  @Column('text', { nullable: true })
  iconUrl: string | null;

  @Column('text', { nullable: true })
  profileUrl: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
