import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000_initial } from './Migration20261122000000_initial';
import { Migration20261122010400_insertion_order } from './Migration20261122010400_insertion_order';
import { Migration20261122010500_crl_retailer_location_unique } from './Migration20261122010500_crl_retailer_location_unique';
import { Migration20261122010600_store_locator } from './Migration20261122010600_store_locator';
import { Migration20261122013000_search } from './Migration20261122013000_search';
import { Migration20261122014000_lead_search_text } from './Migration20261122014000_lead_search_text';
import { Migration20261123110000_lead_scope_keys } from './Migration20261123110000_lead_scope_keys';
import { Migration20261123110100_phone_formatted } from './Migration20261123110100_phone_formatted';
import { Migration20261123140000_routing } from './Migration20261123140000_routing';
import { Migration20261123141000_webhooks } from './Migration20261123141000_webhooks';
import { Migration20261123150000_lead_phone_search } from './Migration20261123150000_lead_phone_search';
import { Migration20261123151000_lead_events_notify } from './Migration20261123151000_lead_events_notify';
import { Migration20261124140000_lead_events_retention } from './Migration20261124140000_lead_events_retention';
import { Migration20261124141000_crl_external_id } from './Migration20261124141000_crl_external_id';
import { Migration20261124160000_list_order_indexes } from './Migration20261124160000_list_order_indexes';
import { Migration20261124161000_lead_activity_owner_keys } from './Migration20261124161000_lead_activity_owner_keys';
import { Migration20261124162000_crl_retailer_key } from './Migration20261124162000_crl_retailer_key';
import { Migration20261124170000_lead_owner_counts } from './Migration20261124170000_lead_owner_counts';
import { Migration20261124171000_lead_activity_assignee_keys } from './Migration20261124171000_lead_activity_assignee_keys';
import { Migration20261125160000_lead_search_text_statements } from './Migration20261125160000_lead_search_text_statements';
import { Migration20261125161000_lead_search_text_pending_list } from './Migration20261125161000_lead_search_text_pending_list';

/** Every migration in order. A new migration file is added here too. */
export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122010400_insertion_order', class: Migration20261122010400_insertion_order },
  { name: 'Migration20261122010500_crl_retailer_location_unique', class: Migration20261122010500_crl_retailer_location_unique },
  { name: 'Migration20261122010600_store_locator', class: Migration20261122010600_store_locator },
  { name: 'Migration20261122013000_search', class: Migration20261122013000_search },
  { name: 'Migration20261122014000_lead_search_text', class: Migration20261122014000_lead_search_text },
  { name: 'Migration20261123110000_lead_scope_keys', class: Migration20261123110000_lead_scope_keys },
  { name: 'Migration20261123110100_phone_formatted', class: Migration20261123110100_phone_formatted },
  { name: 'Migration20261123140000_routing', class: Migration20261123140000_routing },
  { name: 'Migration20261123141000_webhooks', class: Migration20261123141000_webhooks },
  { name: 'Migration20261123150000_lead_phone_search', class: Migration20261123150000_lead_phone_search },
  { name: 'Migration20261123151000_lead_events_notify', class: Migration20261123151000_lead_events_notify },
  { name: 'Migration20261124140000_lead_events_retention', class: Migration20261124140000_lead_events_retention },
  { name: 'Migration20261124141000_crl_external_id', class: Migration20261124141000_crl_external_id },
  { name: 'Migration20261124160000_list_order_indexes', class: Migration20261124160000_list_order_indexes },
  { name: 'Migration20261124161000_lead_activity_owner_keys', class: Migration20261124161000_lead_activity_owner_keys },
  { name: 'Migration20261124162000_crl_retailer_key', class: Migration20261124162000_crl_retailer_key },
  { name: 'Migration20261124170000_lead_owner_counts', class: Migration20261124170000_lead_owner_counts },
  { name: 'Migration20261124171000_lead_activity_assignee_keys', class: Migration20261124171000_lead_activity_assignee_keys },
  { name: 'Migration20261125160000_lead_search_text_statements', class: Migration20261125160000_lead_search_text_statements },
  { name: 'Migration20261125161000_lead_search_text_pending_list', class: Migration20261125161000_lead_search_text_pending_list },
];
