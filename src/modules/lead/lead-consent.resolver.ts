import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { authorize } from '../../access/policy';
import { recordActor, transactional } from '../../db/write';
import { Validator } from '../../errors';
import { audit } from '../audit/audit.service';
import { Lead } from './lead.entity';
import type { LeadRow } from './lead.repository';
import { leadPolicy } from './lead.policy';
import { LeadService } from './lead.service';
import { CONSENT_PURPOSES, LeadConsent, type ConsentPurpose } from './lead-consent.types';
import { consentsOf, withdrawConsents, type LeadConsentRow } from './lead-consent.repository';

/**
 * A lead's consent records (docs/personal-data.md "Consent"): read by whoever sees the lead, one statement
 * per batch of leads; withdrawn by whoever may update it (a store's staff included: the person may ask
 * the store that serves them), which stops every mail about the person from then on.
 */
@Resolver(() => Lead)
export class LeadConsentResolver {
  @FieldResolver(() => [LeadConsent], { description: 'What the person agreed to, oldest first: from the contact form, the API or an import, each with its withdrawal.' })
  consents(@Root() lead: LeadRow, @Ctx() ctx: Context): Promise<LeadConsentRow[]> {
    return ctx.loaders.custom<string, LeadConsentRow[]>('lead.consents', (ids) => consentsOf(ctx.em, ids)).load(lead.id);
  }

  @Mutation(() => Lead, {
    description:
      "Withdraws the lead's consents of `purpose` (sets their `withdrawnAt`; already withdrawn ones keep theirs). With `contact`, no " +
      'notification mail about the lead is queued or sent any more (those waiting are skipped) and no confirmation mail goes to the ' +
      'person, until a new `contact` consent is recorded. Needs the right to update the lead; audited (`consent.withdrawn`).',
  })
  async withdrawLeadConsent(
    @Arg('leadId', () => ID, { description: "The lead (UUID); one outside the caller's scope is NOT_FOUND." }) leadId: string,
    @Arg('purpose', () => String, { defaultValue: 'contact', description: 'The purpose to withdraw: `contact`.' }) purpose: string,
    @Ctx() ctx: Context,
  ): Promise<LeadRow> {
    const service = new LeadService(ctx);
    const lead = await service.get(leadId);
    authorize(ctx.caller, 'update', leadPolicy);
    if (!(CONSENT_PURPOSES as readonly string[]).includes(purpose)) new Validator().add('purpose', 'inclusion', `must be one of: ${CONSENT_PURPOSES.join(', ')}`).throwIfAny();
    await transactional(ctx.em, async (tx) => {
      await recordActor(tx, ctx.caller?.userId);
      const withdrawn = await withdrawConsents(tx, lead.id, purpose as ConsentPurpose);
      await audit.record(tx, ctx.caller, 'consent.withdrawn', { type: 'lead', id: lead.id, companyId: lead.ownerType === 'Company' ? lead.ownerId : null }, { purpose, withdrawn });
    });
    return service.get(lead.id);
  }
}
