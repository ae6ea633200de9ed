import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A tool key registered for a project, with its label (`<application>-<tool>`) and application. */
@Entity('tools')
export class ToolEntity {
  @PrimaryColumn('uuid')
  projectId: string;

  @PrimaryColumn('text')
  key: string;

  @Column('text')
  label: string;

  @Column('text')
  application: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
