import { Field, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';
import { AddressInput, EmailInput, PhoneNumberInput } from '../contact/contact.input';
import { HourInput } from './hours';

@InputType()
export class RetailerLocationInput {
  @Field(() => UUIDScalar, { nullable: true, description: "Required from the platform operator on create; defaults to a retailer admin's retailer. Cannot change." })
  retailerId?: string | null;

  @Field(() => String, { nullable: true, description: 'Required on create.' })
  name?: string | null;

  @Field(() => String, { nullable: true })
  website?: string | null;

  @Field(() => String, { nullable: true })
  placeId?: string | null;

  @Field(() => String, { nullable: true, description: 'IANA zone name, e.g. `America/Chicago`.' })
  timezone?: string | null;

  @Field(() => AddressInput, { nullable: true, description: 'Null removes the address.' })
  physicalAddress?: AddressInput | null;

  @Field(() => EmailInput, { nullable: true })
  generalEmail?: EmailInput | null;

  @Field(() => PhoneNumberInput, { nullable: true })
  generalPhoneNumber?: PhoneNumberInput | null;

  @Field(() => [HourInput], { nullable: true })
  hours?: HourInput[] | null;
}
