import type { UserDto } from './dto/user.dto';
import type { UserEntity } from './user.entity';
import { customerIdOf } from './users.service';

/** Every version shows a user alike; never the password hash. */
export function toUser(u: UserEntity): UserDto {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    roles: u.roles,
    customerId: customerIdOf(u),
    version: u.version,
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
  };
}
