import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { PageType, type ListArgs } from '../../graphql/common';
import { ApiKey } from './api-key.entity';
import { GeneratedApiKey } from './api-key.output';
import { User } from './user.entity';
import { CreateUserInput, UpdateUserInput } from './user.input';
import { loadAssignments, UserService, type UserAssignments } from './user.service';
import { listInputs } from '../../graphql/list-args';
import { userSearch } from './user.search';

const UserLists = listInputs(userSearch, 'User');

export const UserPage = PageType(User, 'UserPage');
export const UserConnection = ConnectionType(User, 'User');

const service = (ctx: Context) => new UserService(ctx, ctx.caller!);
const assignments = (ctx: Context, user: User) =>
  ctx.loaders.custom<string, UserAssignments>('user.assignments', (ids) => loadAssignments(ctx.em, ids)).load(user.id);

@Resolver(() => User)
export class UserResolver {
  @Query(() => UserPage, { description: 'Users the caller manages.' })
  users(@Args(() => UserLists.ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return service(ctx).list(args);
  }

  @Query(() => UserConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  usersConnection(@Args(() => UserLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return service(ctx).connection(filter, paging);
  }

  @Query(() => User)
  user(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return service(ctx).get(id);
  }

  @Query(() => [ApiKey], { description: "A user's API keys, newest first, revoked ones included." })
  apiKeys(@Arg('userId', () => ID) userId: string, @Ctx() ctx: Context) {
    return service(ctx).apiKeys(userId);
  }

  @Mutation(() => User)
  createUser(@Arg('input', () => CreateUserInput) input: CreateUserInput, @Ctx() ctx: Context) {
    return service(ctx).create(input);
  }

  @Mutation(() => User)
  updateUser(@Arg('id', () => ID) id: string, @Arg('input', () => UpdateUserInput) input: UpdateUserInput, @Ctx() ctx: Context) {
    return service(ctx).update(id, input);
  }

  @Mutation(() => GeneratedApiKey, { description: 'A new key for the user; the plain key is returned only here.' })
  generateApiKey(
    @Arg('userId', () => ID) userId: string,
    @Arg('label', () => String, { nullable: true }) label: string | null,
    @Ctx() ctx: Context,
  ) {
    return service(ctx).generateApiKey(userId, label);
  }

  @Mutation(() => ApiKey, { description: 'Revokes a key at once; its next request is 401.' })
  revokeApiKey(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return service(ctx).revokeApiKey(id);
  }

  @FieldResolver(() => [ID], { description: 'Company retailers a company retailer manager is assigned.' })
  async companyRetailerIds(@Root() user: User, @Ctx() ctx: Context) {
    return (await assignments(ctx, user)).companyRetailerIds;
  }

  @FieldResolver(() => [ID], { description: 'CRLs a location user or sales associate is assigned.' })
  async companyRetailerLocationIds(@Root() user: User, @Ctx() ctx: Context) {
    return (await assignments(ctx, user)).companyRetailerLocationIds;
  }

  @FieldResolver(() => [ID], { description: 'Retailer locations a store manager is assigned.' })
  async retailerLocationIds(@Root() user: User, @Ctx() ctx: Context) {
    return (await assignments(ctx, user)).retailerLocationIds;
  }
}
