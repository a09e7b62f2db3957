import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { JSONScalar } from '../../graphql/common';
import { PersonalDataService } from './personal-data.service';
import { ErasureJob, PersonSelector } from './personal-data.types';

@Resolver()
export class PersonalDataResolver {
  @Query(() => JSONScalar, {
    description:
      'Everything held about a person in a company, as one JSON document (GDPR Art. 15 and 20; docs/personal-data.md "Access"): leads (merged duplicates included), ' +
      'contacts, location, consents, outcome, offers, activities, events and the webhook deliveries that carried them, notification mails, visitor confirmations. ' +
      'Paged by lead (`page.end_cursor`, `page.has_next_page`). An unknown person is an empty document. A company admin (its own company) or the platform operator; others FORBIDDEN.',
  })
  personalData(
    @Arg('selector', () => PersonSelector, { description: 'Who: exactly one of `email`, `phone`, `leadId`.' }) selector: PersonSelector,
    @Arg('first', () => Int, { defaultValue: 50, description: 'How many leads this page holds (1 to 200).' }) first: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's `page.end_cursor`." }) after: string | null,
    @Ctx() ctx: Context,
  ) {
    return new PersonalDataService(ctx).export(selector, first, after);
  }

  @Mutation(() => ErasureJob, {
    description:
      "Erases a person's personal fields everywhere they were copied in the company (GDPR Art. 17; docs/personal-data.md \"Erasure\"): leads and merged duplicates, " +
      'contacts, activity data, outcome reasons, event payloads, delivery logs, visitor confirmations, stored answers, the search engine. Counts, outcomes and routing ' +
      'history stay, anonymous; partners hear `lead.erased`. A company admin (its own company) or the platform operator; others FORBIDDEN.',
  })
  erasePersonalData(@Arg('selector', () => PersonSelector, { description: 'Who: exactly one of `email`, `phone`, `leadId`.' }) selector: PersonSelector, @Ctx() ctx: Context) {
    return new PersonalDataService(ctx).erase(selector);
  }
}
