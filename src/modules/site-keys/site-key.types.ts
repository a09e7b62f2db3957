import { Field, ID, InputType, ObjectType } from 'type-graphql';

/** A company's publishable site key (docs/lead-loop.md): embedded in pages, it authenticates nothing but the contact form. */
@ObjectType({ description: "A company's publishable site key (`pk_…`): it lets pages on its allowed origins post the store contact form. Not a secret and never an API key." })
export class SiteKey {
  @Field(() => ID, { description: 'The key record (UUID).' })
  id!: string;

  @Field(() => ID, { description: 'The company whose stores the key may ask.' })
  companyId!: string;

  @Field(() => String, { description: 'The publishable key, `pk_` and 32 url-safe characters, to embed in a page (`data-site-key`).' })
  key!: string;

  @Field(() => String, { description: 'What the key is for, e.g. the website it is embedded in.' })
  name!: string;

  @Field(() => [String], { description: 'The exact origins (`https://shop.example.com`) whose pages may use it; a request from any other origin is refused.' })
  allowedOrigins!: string[];

  @Field(() => Date, { description: 'When it was created.' })
  createdAt!: Date;

  @Field(() => ID, { nullable: true, description: 'The user who created it; null once that user is gone.' })
  createdById!: string | null;

  @Field(() => Date, { nullable: true, description: 'When it was revoked; a revoked key is refused. Null while it works.' })
  revokedAt!: Date | null;
}

@InputType({ description: 'A new site key.' })
export class CreateSiteKeyInput {
  @Field(() => ID, { nullable: true, description: "The company (UUID); a company admin's own when absent. The platform operator names one." })
  companyId?: string | null;

  @Field(() => String, { description: 'What the key is for (1 to 255 characters).' })
  name!: string;

  @Field(() => [String], { description: 'Exact origins: scheme, host and an optional port, no path (`https://shop.example.com`); 1 to 20.' })
  allowedOrigins!: string[];
}
