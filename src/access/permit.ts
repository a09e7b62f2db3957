import { invalid, validationDetail } from '../errors';

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Keeps the attributes of `input` the caller's role may write. The rest are dropped, or, with
 * strict parameter checking on, reported together as 422 `unpermitted`.
 */
export function permit<T extends object>(input: T, allowed: readonly (keyof T)[], strict: boolean): Partial<T> {
  const kept: Partial<T> = {};
  const refused: string[] = [];
  for (const key of Object.keys(input) as (keyof T)[]) {
    if (input[key] === undefined) continue;
    if (allowed.includes(key)) kept[key] = input[key];
    else refused.push(snake(String(key)));
  }
  if (strict && refused.length) throw invalid(refused.map((f) => validationDetail(f, 'unpermitted')));
  return kept;
}
