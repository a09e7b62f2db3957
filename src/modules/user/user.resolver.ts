import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { PageType, type ListArgs } from '../../graphql/common';
import { ApiKey } from './api-key.entity';
import { GeneratedApiKey } from './api-key.output';
import { User } from './user.entity';
import { CreateUserInput, UpdateUserInput } from './user.input';
import { loadAssignments, UserService, type UserAssignments } from './user.service';
import { listInputs } from '../../search/list-args';
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

  @Query(() => User, { description: 'One user the caller manages, by id.' })
  user(@Arg('id', () => ID, { description: "The user's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return service(ctx).get(id);
  }

  @Query(() => [ApiKey], { description: "A user's API keys, newest first, revoked ones included." })
  apiKeys(@Arg('userId', () => ID, { description: 'The user (UUID), one the caller manages.' }) userId: string, @Ctx() ctx: Context) {
    return service(ctx).apiKeys(userId);
  }

  @Mutation(() => User, { description: 'Creates a user of a company or a retailer, with a role; `leadnet users create` does the same. Its API keys come from `generateApiKey`.' })
  createUser(@Arg('input', () => CreateUserInput, { description: "The new user's attributes." }) input: CreateUserInput, @Ctx() ctx: Context) {
    return service(ctx).create(input);
  }

  @Mutation(() => User, { description: "Changes a managed user's name, email, role, organisation or scope assignments." })
  updateUser(@Arg('id', () => ID, { description: "The user to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => UpdateUserInput, { description: 'The attributes to change; those not sent keep their values.' }) input: UpdateUserInput, @Ctx() ctx: Context) {
    return service(ctx).update(id, input);
  }

  @Mutation(() => GeneratedApiKey, { description: 'A new key for the user; the plain key is returned only here.' })
  generateApiKey(
    @Arg('userId', () => ID, { description: 'The user the key acts as (UUID), one the caller manages.' }) userId: string,
    @Arg('label', () => String, { nullable: true, description: 'A note to tell keys apart in `apiKeys` (e.g. "CRM sync").' }) label: string | null,
    @Ctx() ctx: Context,
  ) {
    return service(ctx).generateApiKey(userId, label);
  }

  @Mutation(() => ApiKey, { description: 'Revokes a key at once; its next request is 401.' })
  revokeApiKey(@Arg('id', () => ID, { description: "The API key to revoke (UUID), as `apiKeys` lists it." }) id: string, @Ctx() ctx: Context) {
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
