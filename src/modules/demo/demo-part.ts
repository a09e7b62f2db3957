import type { EntityManager } from '@mikro-orm/postgresql';
import type { Role } from '../user/role';

/** What the demo seed created, with the only copy of each plain API key. */
export interface DemoSeed {
  company: { id: string; name: string };
  retailer: { id: string; name: string };
  stores: Array<{ companyRetailerLocationId: string; retailerLocationId: string; name: string; city: string }>;
  products: Array<{ id: string; sku: string; name: string }>;
  /** How many leads (with timelines) the seed spread over the stores. */
  leads: number;
  users: Array<{ role: Role; email: string; id: string; apiKey: string }>;
}

/**
 * One module's share of the demo network (`AppModule.demo`): it creates its records in the seed's
 * transaction and returns what later parts read (`DemoSeedContext.get`). The seeder runs the parts of
 * the module list after those they name in `after`.
 */
export interface DemoPart<T = unknown> {
  /** For messages, e.g. `territory`. */
  name: string;
  /** The parts whose records this one reads; they run first. */
  after?: readonly DemoPart[];
  /** Whether the database already holds this part's records: then the whole seed changes nothing. */
  present?: (tx: EntityManager) => Promise<boolean>;
  /** Creates the records (flushed once, after every part) and returns what later parts read. */
  seed: (demo: DemoSeedContext) => T;
}

/** What one running demo part may use: the transaction, the parts it runs after, the summary it adds to. */
export class DemoSeedContext {
  private readonly made = new Map<DemoPart, unknown>();
  private current: DemoPart | null = null;

  constructor(
    readonly tx: EntityManager,
    /** The summary `seedDemo` returns; each part fills its own keys. */
    readonly report: Partial<DemoSeed>,
  ) {}

  /** What `part` returned; only a part named in the running part's `after` may be read. */
  get<T>(part: DemoPart<T>): T {
    if (!this.current?.after?.includes(part as DemoPart)) {
      throw new Error(`demo part ${this.current?.name} reads ${part.name}: name it in its after`);
    }
    return this.made.get(part as DemoPart) as T;
  }

  /** Runs `part` (the seeder calls this in order). */
  run(part: DemoPart): void {
    this.current = part;
    this.made.set(part, part.seed(this));
    this.current = null;
  }
}

/**
 * The parts in the order they run: each after the parts it names, otherwise in the order given (the
 * module list's). A part named in `after` that no module contributes, or a cycle, is an error.
 */
export function orderDemoParts(parts: readonly DemoPart[]): DemoPart[] {
  const ordered: DemoPart[] = [];
  const visiting = new Set<DemoPart>();
  const visit = (part: DemoPart) => {
    if (ordered.includes(part)) return;
    if (visiting.has(part)) throw new Error(`demo parts: ${part.name} runs after itself`);
    visiting.add(part);
    for (const before of part.after ?? []) {
      if (!parts.includes(before)) throw new Error(`demo part ${part.name} runs after ${before.name}, which no module contributes`);
      visit(before);
    }
    visiting.delete(part);
    ordered.push(part);
  };
  parts.forEach(visit);
  return ordered;
}
