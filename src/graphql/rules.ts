import { rule } from 'graphql-shield';
import type { Context } from '../context';
import { forbidden, unauthenticated } from '../errors';
import { Role } from '../auth/role';

/** Any valid API key. */
export const isAuthenticated = rule({ cache: 'contextual' })((_parent, _args, ctx: Context) =>
  ctx.caller ? true : unauthenticated(),
);

/** A company or retailer user: the callers of the /v1 resources (the platform operator gets 403). */
export const isNetworkUser = rule({ cache: 'contextual' })((_parent, _args, ctx: Context) => {
  if (!ctx.caller) return unauthenticated();
  return ctx.caller.role === Role.PlatformOperator ? forbidden() : true;
});

/** The platform operator, who manages users, keys and the network through GraphQL. */
export const isPlatformOperator = rule({ cache: 'contextual' })((_parent, _args, ctx: Context) => {
  if (!ctx.caller) return unauthenticated();
  return ctx.caller.role === Role.PlatformOperator ? true : forbidden();
});
