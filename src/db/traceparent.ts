import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import { currentTraceparent } from '../tracing';

/**
 * Tells PostgreSQL the `traceparent` of the sampled request a write transaction serves, as the
 * transaction-local setting `leadnet.traceparent`: the events the transaction records keep it
 * (`lead_events.traceparent`, Migration20261207000700_event_traceparent), and their deliveries join the
 * request's trace. One statement per root transaction, only when tracing is on and the request sampled.
 */
export class TraceparentSubscriber implements EventSubscriber {
  async afterTransactionStart({ em, transaction }: TransactionEventArgs): Promise<void> {
    const traceparent = currentTraceparent();
    if (!traceparent) return;
    await (em as any).getConnection().execute(`select set_config('leadnet.traceparent', ?, true)`, [traceparent], 'run', transaction);
  }
}
