import { Column, Entity, PrimaryColumn } from 'typeorm';
import { VersionedEntity } from '../../database/versioned.entity';
import type { Role } from '../permissions';

@Entity('api_keys')
export class ApiKeyEntity extends VersionedEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('varchar') name: string;
  /** the first characters of the key, shown so a person can tell keys apart */
  @Column('varchar') prefix: string;
  /** SHA-256 of the key, hex; the key itself is never stored */
  @Column({ type: 'char' }) keyHash: string;
  @Column('varchar') role: Role;
  @Column('varchar', { nullable: true }) customerId: string | null;
  @Column('timestamptz', { nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { nullable: true }) revokedAt: Date | null;
}
