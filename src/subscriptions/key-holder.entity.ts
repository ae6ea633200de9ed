import { Column, CreateDateColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The columns of what holds a key, a subscription or an application (docs/api.md, "Keys"): the key
 * is stored only as a SHA-256 hash. Not a table itself: each entity has its own.
 */
export abstract class KeyHolderEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  @Column('char', { length: 64 })
  keyHash: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
