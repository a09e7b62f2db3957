import DataLoader from 'dataloader';
import type { EntityClass, EntityManager, FilterQuery } from '@mikro-orm/postgresql';

/**
 * Per-request DataLoaders, created on first use. Every association a resolver embeds goes through
 * one of these, so a page costs one statement per association, whatever its size.
 */
export class Loaders {
  private readonly loaders = new Map<string, DataLoader<any, any>>();

  private readonly unitOfWork: () => EntityManager;

  /** `em`: the request's unit of work, or how to get it when a loader first needs it. */
  constructor(em: EntityManager | (() => EntityManager)) {
    this.unitOfWork = typeof em === 'function' ? em : () => em;
  }

  private get em(): EntityManager {
    return this.unitOfWork();
  }

  /** Entities by primary key (null when missing). */
  byId<T extends { id: string }>(entity: EntityClass<T>): DataLoader<string, T | null> {
    return this.get(`id:${entity.name}`, async (ids: readonly string[]) => {
      const rows = await this.em.find(entity, { id: { $in: [...ids] } } as unknown as FilterQuery<T>);
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => byId.get(id) ?? null);
    });
  }

  /**
   * Entities by primary key among those `visible` keeps (a set-based check of the whole batch, e.g.
   * `visibleIds` of src/access/visibility.ts); null for one it leaves out, as for a missing one.
   */
  visibleById<T extends { id: string }>(
    name: string,
    entity: EntityClass<T>,
    visible: (ids: readonly string[]) => Promise<Set<string>>,
  ): DataLoader<string, T | null> {
    return this.get(`visible:${name}`, async (ids: readonly string[]) => {
      const seen = await visible(ids);
      const rows = await this.byId(entity).loadMany(ids.filter((id) => seen.has(id)));
      const byId = new Map(rows.filter((r): r is T => !!r && !(r instanceof Error)).map((r) => [r.id, r]));
      return ids.map((id) => byId.get(id) ?? null);
    });
  }

  /** Whether each id is among those `visible` keeps (one set-based check per batch). */
  isVisible(name: string, visible: (ids: readonly string[]) => Promise<Set<string>>): DataLoader<string, boolean> {
    return this.get(`seen:${name}`, async (ids: readonly string[]) => {
      const seen = await visible(ids);
      return ids.map((id) => seen.has(id));
    });
  }

  /** Children by the id of their parent (`fk` is the ManyToOne property pointing to it). */
  manyBy<T extends object>(
    entity: EntityClass<T>,
    fk: string,
    orderBy: Record<string, 'asc' | 'desc'> = { createdAt: 'asc', id: 'asc' },
  ): DataLoader<string, T[]> {
    return this.get(`many:${entity.name}.${fk}:${JSON.stringify(orderBy)}`, async (ids: readonly string[]) => {
      const rows = await this.em.find(entity, { [fk]: { $in: [...ids] } } as unknown as FilterQuery<T>, { orderBy: orderBy as any });
      const groups = new Map<string, T[]>(ids.map((id) => [id, []]));
      for (const row of rows) groups.get(((row as any)[fk] as { id: string }).id)?.push(row);
      return ids.map((id) => groups.get(id)!);
    });
  }

  /** Any other batch, cached under `name` for this request. */
  custom<K, V>(name: string, batch: (keys: readonly K[]) => Promise<V[]>): DataLoader<K, V> {
    return this.get(`custom:${name}`, batch);
  }

  private get<K, V>(key: string, batch: (keys: readonly K[]) => Promise<(V | Error)[]>): DataLoader<K, V> {
    let loader = this.loaders.get(key);
    if (!loader) {
      loader = new DataLoader<K, V>(batch, { maxBatchSize: 1000 });
      this.loaders.set(key, loader);
    }
    return loader;
  }
}
