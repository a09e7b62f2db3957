import type { EntityManager } from '@mikro-orm/postgresql';
import type { Company } from '../company/company.entity';
import type { Product } from '../product/product.entity';
import { Lead } from './lead.entity';
import { LeadActivity, type LeadActivityType } from './lead-activity.entity';
import { Location } from '../contact/location.entity';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { companyDemo } from '../company/company.demo';
import { crlDemo, type DemoStore } from '../company-retailer-location/company-retailer-location.demo';
import { productDemo } from '../product/product.demo';
import { DEMO_LEADS } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/** The demo leads, with their timelines, spread over the stores (`createDemoLeads`). */
export const leadDemo: DemoPart<void> = {
  name: 'lead',
  after: [companyDemo, crlDemo, productDemo],
  seed: (demo) => {
    const leads = createDemoLeads(demo.tx, demo.get(companyDemo), demo.get(crlDemo), demo.get(productDemo), DEMO_LEADS);
    demo.report.leads = leads.length;
  },
};

const FIRST = ['Avery', 'Blake', 'Carmen', 'Dana', 'Eli', 'Farah', 'Gus', 'Hana', 'Ivan', 'Jules', 'Kai', 'Lena', 'Milo', 'Nia', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Theo', 'Uma', 'Vik', 'Wren', 'Yara', 'Zane'];
const LAST = ['Abbott', 'Becker', 'Chen', 'Dubois', 'Evans', 'Fischer', 'Garcia', 'Hughes', 'Ito', 'Jensen', 'Kowalski', 'Larsen', 'Moreau', 'Nguyen', 'Okafor', 'Patel', 'Reyes', 'Singh', 'Tremblay', 'Walsh'];
/** Where a lead is in the funnel, with how often it happens. */
const FUNNEL: Array<{ status: string; steps: string[]; weight: number }> = [
  { status: 'New', steps: [], weight: 30 },
  { status: 'Contacted', steps: ['Contacted'], weight: 25 },
  { status: 'Quoted', steps: ['Contacted', 'Quoted'], weight: 20 },
  { status: 'Won', steps: ['Contacted', 'Quoted', 'Won'], weight: 15 },
  { status: 'Lost', steps: ['Contacted', 'Lost'], weight: 10 },
];
const FIRST_CONTACT: LeadActivityType[] = ['LeadActivity::QuoteRequest', 'LeadActivity::QuoteRequest', 'LeadActivity::SampleRequest', 'LeadActivity::InboundCall', 'LeadActivity::Referral'];
const NOTES = ['Wants a test ride on Saturday.', 'Asked about financing.', 'Comparing with a competitor.', 'Needs the bike before a race in three weeks.', 'Prefers email.'];
const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** A small deterministic generator (mulberry32): the demo data is the same on every machine. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` leads of `company` spread over the last 90 days and its stores, each with an email, most with
 * a phone number, a location near their store and a timeline that matches their status (first contact,
 * assignment, status changes, notes, calls). Phone numbers use the fictional 555-01xx range of each
 * store's area code, leaving 0100 and 0163 to the README and start-up banner examples.
 */
export function createDemoLeads(tx: EntityManager, company: Company, stores: DemoStore[], products: Product[], count: number, now = new Date()): Lead[] {
  const rand = random(20261123);
  const pick = <T>(items: T[]) => items[Math.floor(rand() * items.length)];
  const total = FUNNEL.reduce((sum, f) => sum + f.weight, 0);
  const funnel = () => {
    let n = rand() * total;
    return FUNNEL.find((f) => (n -= f.weight) < 0) ?? FUNNEL[0];
  };
  const leads: Lead[] = [];
  for (let i = 0; i < count; i++) {
    const { crl, spec: store } = stores[i % stores.length];
    const first = FIRST[i % FIRST.length];
    const last = LAST[Math.floor(i / FIRST.length) % LAST.length];
    const createdAt = new Date(now.getTime() - rand() * 90 * DAY);
    const stage = funnel();
    const location = tx.create(Location, {
      city: store.city,
      province: store.province,
      postalCode: store.postalCode,
      country: store.country,
      latitude: +(store.latitude + (rand() - 0.5) * 0.2).toFixed(5),
      longitude: +(store.longitude + (rand() - 0.5) * 0.2).toFixed(5),
      coordinatesSource: 'explicit',
      createdAt,
      updatedAt: createdAt,
    });
    const lead = tx.create(Lead, {
      name: `${first} ${last}`,
      status: stage.status,
      ownerCompany: company,
      assignee: crl,
      location,
      sourceType: 'CompanyRetailerLocation',
      sourceId: crl.id,
      createdAt,
      updatedAt: createdAt,
    });
    tx.create(Email, { lead, email: `${first}.${last}.${i + 1}@example.com`.toLowerCase(), createdAt, updatedAt: createdAt });
    const line = 101 + (Math.floor(i / stores.length) % 99);
    if (rand() < 0.8 && line !== 163) {
      tx.create(PhoneNumber, { lead, phoneNumber: `+1${store.areaCode}5550${line}`, countryCode: store.country, createdAt, updatedAt: createdAt });
    }

    let at = createdAt.getTime();
    const activity = (type: LeadActivityType, data: Record<string, unknown>) => {
      const stamp = new Date(Math.min(at, now.getTime()));
      tx.create(LeadActivity, { lead, type, data, sourceType: 'CompanyRetailerLocation', sourceId: crl.id, createdAt: stamp, updatedAt: stamp });
      at += (1 + rand() * 47) * HOUR;
    };
    const product = pick(products);
    const firstContact = pick(FIRST_CONTACT);
    activity(
      firstContact,
      firstContact === 'LeadActivity::QuoteRequest' || firstContact === 'LeadActivity::SampleRequest'
        ? { products: [{ sku: product.sku, name: product.name, quantity: 1 + Math.floor(rand() * 2) }], notes: pick(NOTES) }
        : { notes: pick(NOTES) },
    );
    activity('LeadActivity::Assignment', { from_id: null, to_id: crl.id });
    let from = 'New';
    for (const to of stage.steps) {
      if (to === 'Contacted') activity(rand() < 0.5 ? 'LeadActivity::OutboundCall' : 'LeadActivity::OutboundEmail', { notes: pick(NOTES) });
      if (to === 'Won') activity('LeadActivity::Purchase', { products: [{ sku: product.sku, name: product.name, quantity: 1 }] });
      activity('LeadActivity::StatusChange', { from, to });
      from = to;
    }
    if (rand() < 0.3) activity('LeadActivity::Note', { notes: pick(NOTES) });
    leads.push(lead);
  }
  return leads;
}
