import { visibility } from '../access/visibility';
import * as manifest from './index';

export type { Reference, VisibleKind } from '../access/visibility';

/**
 * src/access/visibility.ts bound to the modules' visibility table: what services and resolvers call
 * (`visibleLoader(ctx, 'Company')`, `checkReferences(ctx, refs)`), and what a page statement evaluates
 * itself (`visibleSql`, `visibleCountSql`) to prime the loaders with (`seenLoader`, `visibleCountLoader`).
 * The table is read at the first call, once every module is loaded (this file is imported by the
 * modules the list itself imports).
 */
export const { visibleIds, visibleLoader, seenLoader, checkReferences, visibleCountLoader, visibleSql, visibleCountSql } = visibility(
  () => manifest.visibilityTable,
);
