import type { Validator } from '../errors';
import { flushTiny } from '../limits';

const MAX_LENGTH = 255;

/**
 * Copies plain input attributes onto an entity, reporting problems under their snake_case field
 * names. `undefined` leaves an attribute alone; `null` or blank text clears an optional one. Text with
 * a NUL character is `invalid` (PostgreSQL cannot store it).
 */
export class Assign<T extends object> {
  constructor(
    private readonly target: T,
    private readonly v: Validator,
  ) {}

  /** Trimmed text; blank is null, or 422 `blank` when required; longer than 255 is `too_long`. */
  text<K extends keyof T>(key: K, value: string | null | undefined, field: string, required = false): void {
    if (value === undefined) return;
    const text = typeof value === 'string' ? value.trim() : '';
    if (text.includes('\u0000')) {
      this.v.add(field, 'invalid');
    } else if (!text) {
      if (required) this.v.add(field, 'blank');
      else this.target[key] = null as T[K];
    } else if (text.length > MAX_LENGTH) {
      this.v.add(field, 'too_long', `is too long (maximum is ${MAX_LENGTH} characters)`);
    } else {
      this.target[key] = text as T[K];
    }
  }

  /** A boolean column that cannot be null. */
  flag<K extends keyof T>(key: K, value: boolean | null | undefined, field: string): void {
    if (value === undefined) return;
    if (value === null) this.v.add(field, 'blank');
    else this.target[key] = value as T[K];
  }

  /** A number at or above `min` (and at most `max`); null clears it unless `required`. */
  number<K extends keyof T>(key: K, value: number | null | undefined, field: string, min: number, required = false, max = Infinity): void {
    if (value === undefined) return;
    if (value === null) {
      if (required) this.v.add(field, 'blank');
      else this.target[key] = null as T[K];
    } else if (!Number.isFinite(value) || value < min || value > max) {
      this.v.add(field, 'invalid', max === Infinity ? `must be greater than or equal to ${min}` : `must be between ${min} and ${max}`);
    } else {
      this.target[key] = flushTiny(value) as T[K];
    }
  }
}
