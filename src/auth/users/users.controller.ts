import { Body, Controller, Delete, Get, Patch, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { IfMatch } from '../../http/input/if-match.decorator';
import { Location, type SetLocation } from '../../http/responses/location.decorator';
import {
  ApiCreated,
  ApiDeleted,
  ApiIfMatch,
  ApiPage,
  ApiResource,
} from '../../http/routing/openapi.decorators';
import { Page } from '../../http/pagination/page';
import { ResourceId } from '../../http/input/resource-id.pipe';
import { RequirePermission } from '../auth.decorators';
import { UserDto } from './dto/user.dto';
import { UserCreateDto, UserPatchDto } from './dto/user-write.dto';
import { ListUsersDto } from './dto/list-users.dto';
import { toUser } from './users.mapper';
import { UsersService } from './users.service';
import { USERS } from './users.repository';
import { CommitHook } from '../../idempotency/commit-hook.decorator';
import { IdempotentPost } from '../../idempotency/idempotent-post.decorator';

/** Users look the same in v1 and v2, so one controller serves both. */
@ApiTags('users')
@Controller({ path: 'users', version: ['1', '2'] })
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @RequirePermission('users:read')
  @ApiOperation({ operationId: 'listUsers', summary: 'List users' })
  @ApiPage(UserDto, () => USERS)
  async list(@Query() query: ListUsersDto): Promise<Page<UserDto>> {
    return (await this.users.list(query, query)).map(toUser);
  }

  @IdempotentPost()
  @RequirePermission('users:write')
  @ApiOperation({
    operationId: 'createUser',
    summary: 'Create a user who signs in to the authorization server',
    description:
      'The email must be unused (409 otherwise). The password is stored only as a scrypt hash and never returned. A customer (`roles: ["customer"]`) acts for itself: its `customerId` is its id.',
  })
  @ApiCreated(UserDto)
  async create(
    @Body() body: UserCreateDto,
    @Location() location: SetLocation,
    @CommitHook() commitHook: CommitHook | undefined,
  ): Promise<UserDto> {
    const user = await this.users.create(body, commitHook);
    location(user.id);
    return toUser(user);
  }

  @Get(':id')
  @RequirePermission('users:read')
  @ApiOperation({ operationId: 'getUser', summary: 'Get a user' })
  @ApiResource(UserDto)
  async get(@ResourceId('user') id: string): Promise<UserDto> {
    return toUser(await this.users.get(id));
  }

  @Patch(':id')
  @RequirePermission('users:write')
  @ApiOperation({
    operationId: 'updateUser',
    summary: 'Change the email, name, roles or password of a user',
  })
  @ApiIfMatch()
  @ApiResource(UserDto)
  async update(
    @ResourceId('user') id: string,
    @Body() body: UserPatchDto,
    @IfMatch() versions?: number[],
  ): Promise<UserDto> {
    return toUser(await this.users.update(id, body, versions));
  }

  @Delete(':id')
  @RequirePermission('users:write')
  @ApiOperation({ operationId: 'deleteUser', summary: 'Delete a user' })
  @ApiIfMatch()
  @ApiDeleted()
  async remove(@ResourceId('user') id: string, @IfMatch() versions?: number[]): Promise<void> {
    await this.users.delete(id, versions);
  }
}
