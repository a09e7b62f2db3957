import type { EntityManager } from '@mikro-orm/postgresql';
import { Company } from '../../src/modules/company/company.entity';
import { CompanyRetailer } from '../../src/modules/company-retailer/company-retailer.entity';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { CompanyStoreType } from '../../src/modules/company-store-type/company-store-type.entity';
import { Collection } from '../../src/modules/collection/collection.entity';
import { Email } from '../../src/modules/contact/email.entity';
import { Location } from '../../src/modules/contact/location.entity';
import { PhoneNumber } from '../../src/modules/contact/phone-number.entity';
import { Product } from '../../src/modules/product/product.entity';
import { ProductImage } from '../../src/modules/product/product-image.entity';
import { Stock } from '../../src/modules/product/stock.entity';
import { Hour, type Weekday } from '../../src/modules/retailer-location/hour.entity';
import { RetailerLocation } from '../../src/modules/retailer-location/retailer-location.entity';
import { Retailer } from '../../src/modules/retailer/retailer.entity';

let seq = 0;
const next = () => ++seq;

/** Metres per degree of latitude on the mean sphere (R = 6,371,008.7714 m). */
const METRES_PER_DEGREE = (Math.PI * 6_371_008.7714) / 180;

/** The point `metres` due north of `origin` (a meridian is a great circle: the distance is exact). */
export function north(origin: { latitude: number; longitude: number }, metres: number) {
  return { latitude: origin.latitude + metres / METRES_PER_DEGREE, longitude: origin.longitude };
}

export async function storeType(em: EntityManager, owner: Company, name: string, boost = 0): Promise<CompanyStoreType> {
  const t = em.create(CompanyStoreType, { company: owner, name, boost });
  await em.flush();
  return t;
}

export async function collection(em: EntityManager, owner: Company, name = `Collection ${next()}`): Promise<Collection> {
  const c = em.create(Collection, { company: owner, name });
  await em.flush();
  return c;
}

/** A product of `owner`, optionally in a collection and with images. */
export async function catalogProduct(
  em: EntityManager,
  owner: Company,
  data: { sku?: string; name?: string; externalId?: string | null; collection?: Collection | null; category?: string; url?: string; images?: number } = {},
): Promise<Product> {
  const n = next();
  const p = em.create(Product, {
    company: owner,
    sku: data.sku ?? `SKU-${n}`,
    name: data.name ?? `Product ${n}`,
    externalId: data.externalId ?? null,
    collection: data.collection ?? null,
    category: data.category ?? null,
    url: data.url ?? null,
  });
  for (let i = 0; i < (data.images ?? 0); i++) {
    em.create(ProductImage, { product: p, url: `https://img.example.test/${p.sku}/${i}.jpg`, thumbnailUrl: `https://img.example.test/${p.sku}/${i}-thumb.jpg`, position: i });
  }
  await em.flush();
  return p;
}

export interface HoursSpec {
  day: Weekday;
  open?: boolean;
  openAtHour?: number | null;
  openAtMinute?: number | null;
  closeAtHour?: number | null;
  closeAtMinute?: number | null;
}

export interface StoreSpec {
  latitude?: number | null;
  longitude?: number | null;
  name?: string | null;
  /** The retailer location's name (the CRL name falls back to it). */
  locationName?: string;
  city?: string | null;
  province?: string | null;
  country?: string | null;
  postalCode?: string | null;
  streetLineOne?: string | null;
  storeType?: CompanyStoreType | null;
  sendingLeads?: boolean;
  receivingLeads?: boolean;
  /** Address, email, phone and hours on a linked retailer location (default) or on the CRL itself. */
  onRetailerLocation?: boolean;
  /** No address at all. */
  noAddress?: boolean;
  timezone?: string | null;
  locationTimezone?: string | null;
  website?: string | null;
  email?: string | null;
  phone?: { number: string; country?: string } | null;
  hours?: HoursSpec[];
  stock?: Array<{ product: Product; stocked?: boolean; available?: boolean }>;
}

/** A listed store: a CRL of `cr` with an address (placed at the given coordinates), and its stock. */
export async function store(em: EntityManager, cr: CompanyRetailer, spec: StoreSpec = {}): Promise<CompanyRetailerLocation> {
  const n = next();
  const address = spec.noAddress
    ? null
    : em.create(Location, {
        streetLineOne: spec.streetLineOne === undefined ? `${n} Main St` : spec.streetLineOne,
        city: spec.city === undefined ? 'Portland' : spec.city,
        province: spec.province === undefined ? 'OR' : spec.province,
        country: spec.country === undefined ? 'US' : spec.country,
        postalCode: spec.postalCode === undefined ? '97205' : spec.postalCode,
        latitude: spec.latitude === undefined ? 45.52 : spec.latitude,
        longitude: spec.longitude === undefined ? -122.68 : spec.longitude,
        coordinatesSource: 'explicit',
      });
  const email = spec.email ? em.create(Email, { email: spec.email }) : null;
  const phone = spec.phone ? em.create(PhoneNumber, { phoneNumber: spec.phone.number, countryCode: spec.phone.country ?? 'US' }) : null;
  const onRl = spec.onRetailerLocation ?? true;
  const rl = onRl
    ? em.create(RetailerLocation, {
        retailer: cr.retailer,
        name: spec.locationName ?? `Store ${n}`,
        timezone: spec.locationTimezone ?? null,
        physicalAddress: address,
        generalEmail: email,
        generalPhoneNumber: phone,
      })
    : null;
  const crl = em.create(CompanyRetailerLocation, {
    company: cr.company,
    companyRetailer: cr,
    retailerLocation: rl,
    name: spec.name === undefined ? null : spec.name,
    sendingLeads: spec.sendingLeads ?? true,
    receivingLeads: spec.receivingLeads ?? true,
    companyStoreType: spec.storeType ?? null,
    timezone: spec.timezone ?? null,
    website: spec.website ?? null,
    physicalAddress: onRl ? null : address,
    generalEmail: onRl ? null : email,
    generalPhoneNumber: onRl ? null : phone,
  });
  for (const h of spec.hours ?? []) {
    em.create(Hour, {
      retailerLocation: rl,
      companyRetailerLocation: rl ? null : crl,
      day: h.day,
      open: h.open ?? true,
      openAtHour: h.openAtHour === undefined ? 9 : h.openAtHour,
      openAtMinute: h.openAtMinute === undefined ? 0 : h.openAtMinute,
      closeAtHour: h.closeAtHour === undefined ? 17 : h.closeAtHour,
      closeAtMinute: h.closeAtMinute === undefined ? 0 : h.closeAtMinute,
    });
  }
  for (const s of spec.stock ?? []) {
    em.create(Stock, { companyRetailerLocation: crl, product: s.product, stocked: s.stocked ?? true, available: s.available ?? false });
  }
  await em.flush();
  return crl;
}

/** A company with one retailer relationship to hang stores on. */
export async function locatorNetwork(em: EntityManager, name = `Brand ${next()}`) {
  const brand = em.create(Company, { name });
  const dealer = em.create(Retailer, { name: `Dealer ${next()}` });
  const cr = em.create(CompanyRetailer, { company: brand, retailer: dealer, name: dealer.name });
  await em.flush();
  return { company: brand, retailer: dealer, companyRetailer: cr };
}
