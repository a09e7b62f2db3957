import { Field, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';
import { AddressInput, EmailInput, PhoneNumberInput } from '../contact/contact.input';
import { HourInput } from './hours';

@InputType({ description: "A retailer location's writable attributes. Address, email, phone and hours written here are what every linked company retailer location shows." })
export class RetailerLocationInput {
  @Field(() => UUIDScalar, { nullable: true, description: "Required from the platform operator on create; defaults to a retailer admin's retailer. Cannot change." })
  retailerId?: string | null;

  @Field(() => String, { nullable: true, description: 'Required on create.' })
  name?: string | null;

  @Field(() => String, { nullable: true, description: "The store's web address." })
  website?: string | null;

  @Field(() => String, { nullable: true, description: "The store's Google Places id." })
  placeId?: string | null;

  @Field(() => String, { nullable: true, description: 'IANA zone name, e.g. `America/Chicago`.' })
  timezone?: string | null;

  @Field(() => AddressInput, { nullable: true, description: 'Null removes the address.' })
  physicalAddress?: AddressInput | null;

  @Field(() => EmailInput, { nullable: true, description: "The store's general email; `_destroy` with its id removes it." })
  generalEmail?: EmailInput | null;

  @Field(() => PhoneNumberInput, { nullable: true, description: "The store's general phone number; `_destroy` with its id removes it." })
  generalPhoneNumber?: PhoneNumberInput | null;

  @Field(() => [HourInput], { nullable: true, description: 'Weekly hours to add, change (`id`) or remove (`_destroy`); one item per weekday.' })
  hours?: HourInput[] | null;
}
