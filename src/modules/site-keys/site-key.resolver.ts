import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { SiteKeyService } from './site-key.service';
import { CreateSiteKeyInput, SiteKey } from './site-key.types';

const WHO = 'Company admins for their company; the platform operator for any.';

@Resolver(() => SiteKey)
export class SiteKeyResolver {
  @Query(() => [SiteKey], { description: `A company's publishable site keys, revoked ones too, newest first (at most 500). ${WHO}` })
  siteKeys(@Arg('companyId', () => ID, { nullable: true, description: "The company (UUID); the caller's own when absent (the platform operator: every company's)." }) companyId: string | null, @Ctx() ctx: Context) {
    return new SiteKeyService(ctx).list(companyId);
  }

  @Mutation(() => SiteKey, { description: `A new publishable site key bound to its allowed origins. ${WHO}` })
  createSiteKey(@Arg('input', () => CreateSiteKeyInput, { description: "The new key's name and origins." }) input: CreateSiteKeyInput, @Ctx() ctx: Context) {
    return new SiteKeyService(ctx).create(input);
  }

  @Mutation(() => SiteKey, { description: `Revokes a site key: the contact form refuses it from now on. ${WHO}` })
  revokeSiteKey(@Arg('id', () => ID, { description: 'The key record (UUID).' }) id: string, @Ctx() ctx: Context) {
    return new SiteKeyService(ctx).revoke(id);
  }
}
