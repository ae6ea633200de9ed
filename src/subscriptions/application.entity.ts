import { Column, Entity } from 'typeorm';
import { KeyHolderEntity } from './key-holder.entity';

/** An administrative application authorised on one subscription (application_key). */
@Entity('applications')
export class ApplicationEntity extends KeyHolderEntity {
  @Column('uuid')
  subscriptionId: string;
}
