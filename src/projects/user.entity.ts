import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A person using projects; `id` is the public sharer_id. */
@Entity('users')
export class UserEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  email: string;

  @Column('text')
  username: string;

  @Column('text')
  name: string;

  @Column('uuid', { nullable: true })
  defaultProjectId: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
