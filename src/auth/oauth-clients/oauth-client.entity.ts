import { Column, Entity, PrimaryColumn } from 'typeorm';
import { VersionedEntity } from '../../database/versioned.entity';
import type { Permission } from '../permissions';

@Entity('oauth_clients')
export class OAuthClientEntity extends VersionedEntity {
  @PrimaryColumn('uuid') id: string;
  /** the OAuth `client_id` */
  @Column('varchar') clientId: string;
  @Column('varchar') name: string;
  /** compared exactly with an authorization request's `redirect_uri` */
  @Column('varchar', { array: true }) redirectUris: string[];
  /** a public client (browser, native app) has no secret and must use PKCE */
  @Column('boolean') public: boolean;
  /** the permissions the client may ask for, as scopes */
  @Column('varchar', { array: true }) scopes: Permission[];
  /** SHA-256 of a confidential client's secret, hex; the secret itself is never stored */
  @Column({ type: 'char', nullable: true }) secretHash: string | null;
}
