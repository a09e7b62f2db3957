import { AddressInput } from '../contact/contact.input';
import { Field, Float, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';

import { RoutingRule } from './routing.repository';

export { RoutingRule };
registerEnumType(RoutingRule, {
  name: 'RoutingRule',
  description:
    '`delivery_area`: a store whose delivery areas list the postal code (and country); `delivery_radius`: the nearest store whose ' +
    '`delivery_radius` covers the location; `nearest`: the nearest receiving store within `nearestMaxDistanceMiles`. ' +
    'Existing names (new enums use SCREAMING_SNAKE_CASE).',
  valuesConfig: {
    DeliveryArea: { description: "A receiving store whose delivery areas list the lead's postal code (and country)." },
    DeliveryRadius: { description: "The nearest receiving store whose `deliveryRadius` (miles) covers the lead's location." },
    Nearest: { description: 'The nearest receiving store within `nearestMaxDistanceMiles`.' },
  },
});

export const ALL_RULES: readonly RoutingRule[] = [RoutingRule.DeliveryArea, RoutingRule.DeliveryRadius, RoutingRule.Nearest];
export const DEFAULT_RULES: readonly RoutingRule[] = [RoutingRule.DeliveryArea, RoutingRule.DeliveryRadius];

/** Hard bound on the nearest rule's distance: half the earth's circumference, in miles. */
export const MAX_NEAREST_MILES = 12_450;

@ObjectType({ description: "A company's lead routing settings (off unless enabled)." })
export class RoutingSettings {
  @Field(() => ID, { description: 'The company the settings are for.' })
  companyId!: string;

  @Field(() => Boolean, { description: 'Leads created without an assignee are routed only when true.' })
  enabled!: boolean;

  @Field(() => [RoutingRule], { description: 'The rules tried, first match wins.' })
  strategies!: RoutingRule[];

  @Field(() => Float, { nullable: true, description: 'The `nearest` rule only considers stores this close (miles); required with it.' })
  nearestMaxDistanceMiles!: number | null;

  @Field(() => Boolean, { description: "`nearest` stays in the lead's territory when the lead has one." })
  nearestInTerritory!: boolean;

  @Field(() => Boolean, { description: 'Among equally good stores, the one assigned least recently wins (else the lowest id).' })
  roundRobin!: boolean;

  @Field(() => Date, { nullable: true, description: 'When they last changed; null while the company has never saved any (the defaults apply).' })
  updatedAt!: Date | null;
}

@InputType({ description: 'Changes to the routing settings; fields not sent keep their values.' })
export class RoutingSettingsInput {
  @Field(() => Boolean, { nullable: true, description: 'Route leads created without an assignee.' })
  enabled?: boolean | null;

  @Field(() => [RoutingRule], { nullable: true, description: 'Order matters; no repeats; at least one.' })
  strategies?: RoutingRule[] | null;

  @Field(() => Float, { nullable: true, description: 'The `Nearest` rule only considers stores this close, in miles; required when the rules include it.' })
  nearestMaxDistanceMiles?: number | null;

  @Field(() => Boolean, { nullable: true, description: "The `Nearest` rule stays in the lead's territory when the lead has one." })
  nearestInTerritory?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Among equally good stores, pick the one assigned least recently.' })
  roundRobin?: boolean | null;
}

@InputType({ description: 'An address to route in a dry run: geocoded unless both coordinates are given.' })
export class RoutingAddressInput extends AddressInput {}

@ObjectType({ description: 'Where routing would send a lead at an address, and why.' })
export class RoutingDecision {
  @Field(() => Boolean, { description: "The company's routing is on (a dry run answers either way)." })
  routingEnabled!: boolean;

  @Field(() => ID, { nullable: true, description: 'The CRL chosen; null when no rule matched.' })
  assigneeId!: string | null;

  @Field(() => RoutingRule, { nullable: true, description: 'The rule that chose the store; null when none matched.' })
  rule!: RoutingRule | null;

  @Field(() => Float, { nullable: true, description: 'Miles from the address to the store, when both are placed.' })
  distanceMiles!: number | null;

  @Field(() => String, { description: 'The decision in a sentence.' })
  reason!: string;

  @Field(() => Float, { nullable: true, description: 'The latitude the address was placed at (null: not placed).' })
  latitude!: number | null;

  @Field(() => Float, { nullable: true, description: 'The longitude the address was placed at (null: not placed).' })
  longitude!: number | null;
}
