import type { EntityClass } from '@mikro-orm/postgresql';
import { BaseEntity } from './base.entity';

/** What one feature module gives the ORM: its entity classes. */
export interface EntityContribution {
  entities?: readonly EntityClass<any>[];
}

/**
 * Every entity class of these modules, passed to MikroORM explicitly (no globs: they break under jest
 * and tsx alike).
 */
export function entityList(modules: readonly EntityContribution[]): EntityClass<any>[] {
  return [BaseEntity as EntityClass<any>, ...modules.flatMap((m) => m.entities ?? [])];
}
