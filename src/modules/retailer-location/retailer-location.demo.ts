import { RetailerLocation } from './retailer-location.entity';
import { Hour, WEEKDAYS } from './hour.entity';
import { Location } from '../contact/location.entity';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { retailerDemo } from '../retailer/retailer.demo';
import { RETAILER, STORES } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/** The demo retailer's stores (in `STORES` order), each with an address, an e-mail, a phone number and opening hours. */
export const retailerLocationDemo: DemoPart<RetailerLocation[]> = {
  name: 'retailer-location',
  after: [retailerDemo],
  seed: (demo) => {
    const { tx } = demo;
    const retailer = demo.get(retailerDemo);
    return STORES.map((s) => {
      const name = `${RETAILER} ${s.city}`;
      const retailerLocation = tx.create(RetailerLocation, {
        retailer,
        name,
        website: `https://summit-sports.example/stores/${s.slug}`,
        timezone: s.timezone,
        physicalAddress: tx.create(Location, {
          addressName: name,
          streetLineOne: s.street,
          city: s.city,
          province: s.province,
          postalCode: s.postalCode,
          country: s.country,
          latitude: s.latitude,
          longitude: s.longitude,
          coordinatesSource: 'explicit',
        }),
        generalEmail: tx.create(Email, { email: `${s.slug}@summit-sports.example` }),
        generalPhoneNumber: tx.create(PhoneNumber, { phoneNumber: s.phone, countryCode: s.country }),
      });
      for (const day of WEEKDAYS) {
        const open = day !== 'sunday' || s.sundayOpen;
        const [from, to] = day === 'saturday' ? [10, 18] : day === 'sunday' ? [11, 17] : [10, 19];
        tx.create(Hour, {
          retailerLocation,
          day,
          open,
          openAtHour: open ? from : null,
          openAtMinute: open ? 0 : null,
          closeAtHour: open ? to : null,
          closeAtMinute: open ? 0 : null,
        });
      }
      return retailerLocation;
    });
  },
};
