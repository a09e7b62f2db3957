import type { AppModule } from '../module';
import { Location } from './location.entity';
import { Email } from './email.entity';
import { PhoneNumber } from './phone-number.entity';
import { contactPolicy } from './contact.policy';

/** The contact records (location, e-mails, phone numbers) that retailer locations, CRLs and leads own. */
export const contactModule: AppModule = {
  name: 'contact',
  entities: [Location, Email, PhoneNumber],
  policies: [contactPolicy],
};
