/**
 * Nested writes (SPEC section 1): the items of a nested collection carry an optional `id` and an optional
 * `_destroy`. An item naming a stored record's `id` updates it, or removes it with `_destroy: true`; an
 * item without `id` adds a record (with `_destroy` it is ignored); an `id` the collection does not hold is
 * never a write to another owner's row, but a 422 the caller words. An `id` named twice: its first item
 * decides, later ones are ignored. With `replace` (PUT), stored records no item names are removed.
 *
 * `planNested` only decides; the caller applies the steps, in order, with its own validation.
 */
export interface NestedItem {
  id?: string | null;
  _destroy?: boolean | null;
}

export type NestedStep<E, I> =
  | { op: 'create'; item: I }
  | { op: 'update'; entity: E; item: I }
  | { op: 'remove'; entity: E; item: I | null }
  | { op: 'unknown'; item: I };

/** The steps of a nested write, in the order of `items` (the removals `replace` adds come last). */
export function planNested<E extends { id: string }, I extends NestedItem>(
  items: readonly I[] | null | undefined,
  stored: readonly E[],
  options: { replace?: boolean } = {},
): Array<NestedStep<E, I>> {
  const byId = new Map(stored.map((e) => [e.id, e]));
  const named = new Set<string>();
  const steps: Array<NestedStep<E, I>> = [];
  for (const item of items ?? []) {
    if (item.id == null) {
      if (!item._destroy) steps.push({ op: 'create', item });
      continue;
    }
    const entity = byId.get(item.id);
    if (!entity) steps.push({ op: 'unknown', item });
    else if (named.has(entity.id)) continue;
    else {
      named.add(entity.id);
      steps.push(item._destroy ? { op: 'remove', entity, item } : { op: 'update', entity, item });
    }
  }
  if (options.replace) for (const entity of stored) if (!named.has(entity.id)) steps.push({ op: 'remove', entity, item: null });
  return steps;
}

/** The same steps grouped by what they do, for a caller that validates the whole collection first. */
export interface NestedPlan<E, I> {
  updates: Array<{ entity: E; item: I }>;
  creates: I[];
  removes: E[];
  unknown: I[];
}

export function groupNested<E, I>(steps: ReadonlyArray<NestedStep<E, I>>): NestedPlan<E, I> {
  const plan: NestedPlan<E, I> = { updates: [], creates: [], removes: [], unknown: [] };
  for (const step of steps) {
    if (step.op === 'create') plan.creates.push(step.item);
    else if (step.op === 'update') plan.updates.push({ entity: step.entity, item: step.item });
    else if (step.op === 'remove') plan.removes.push(step.entity);
    else plan.unknown.push(step.item);
  }
  return plan;
}

/**
 * A single nested object (a record's one email, say): `null` or `_destroy` removes the current one; an
 * `id` other than the current one's is `unknown`; otherwise the object updates the current one or,
 * without one, creates it.
 */
export function planNestedOne<E extends { id: string }>(
  input: NestedItem | null,
  current: E | null,
): { op: 'unknown' } | { op: 'remove' } | { op: 'update'; entity: E } | { op: 'create' } {
  if (input?.id != null && input.id !== current?.id) return { op: 'unknown' };
  if (input === null || input._destroy) return { op: 'remove' };
  return current ? { op: 'update', entity: current } : { op: 'create' };
}
