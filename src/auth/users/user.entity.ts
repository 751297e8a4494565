import { Column, Entity, PrimaryColumn } from 'typeorm';
import { VersionedEntity } from '../../database/versioned.entity';
import type { Role } from '../permissions';

@Entity('users')
export class UserEntity extends VersionedEntity {
  @PrimaryColumn('uuid') id: string;
  /** lowercased; unique */
  @Column('varchar') email: string;
  @Column('varchar', { nullable: true }) name: string | null;
  /** scrypt hash with its parameters (password-hasher.ts); never leaves the service */
  @Column('varchar') passwordHash: string;
  @Column('varchar', { array: true }) roles: Role[];
}
