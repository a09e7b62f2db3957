import { InvalidArgumentError, Option } from 'commander';
import { isUuid } from '../search/list';
import { Role } from '../auth/role';

/** Parses a UUID argument; anything else is a usage error naming the value. */
export function uuid(value: string): string {
  if (!isUuid(value)) throw new InvalidArgumentError(`"${value}" is not a UUID.`);
  return value.toLowerCase();
}

/** A repeatable list of UUIDs: `--crl A --crl B`, `--crl A B` or `--crl A,B`. */
export function uuidList(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').filter(Boolean).map(uuid)];
}

/** A user id or email (`--user`). */
export function userRef(value: string): string {
  const text = value.trim();
  if (isUuid(text as unknown) || /^[^\s@]+@[^\s@]+$/.test(text)) return text;
  throw new InvalidArgumentError(`"${value}" is neither a user id (UUID) nor an email.`);
}

export const roleOption = () =>
  new Option('--role <role>', 'the user\'s role').choices(Object.values(Role)).makeOptionMandatory();
