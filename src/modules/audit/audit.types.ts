import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { JSONScalar } from '../../graphql/common';

/**
 * What an entry records (docs/personal-data.md "Audit log"). Other modules name theirs here, so the list
 * of what is audited stays in one place.
 */
export type AuditAction =
  | 'api_key.created'
  | 'api_key.revoked'
  | 'user.created'
  | 'user.updated'
  | 'user.role_changed'
  | 'user.deleted'
  | 'settings.routing_changed'
  | 'settings.response_times_changed'
  | 'settings.retention_changed'
  | 'notification_preferences.changed'
  | 'site_key.created'
  | 'site_key.revoked'
  | 'import.run'
  | 'export.run'
  | 'person.exported'
  | 'person.erased'
  | 'consent.withdrawn'
  | 'retention.applied';

/** Who acted: a user (through an API key), the platform operator at the command line, or a job of the service. */
export enum AuditActorType {
  USER = 'user',
  OPERATOR = 'operator',
  SYSTEM = 'system',
}

registerEnumType(AuditActorType, {
  name: 'AuditActorType',
  description: 'Who made an audited change.',
  valuesConfig: {
    USER: { description: 'A user, through one of its API keys (`actorId` the user, `apiKeyId` the key).' },
    OPERATOR: { description: 'The platform operator at the command line (`leadnet`); `actorId` is null.' },
    SYSTEM: { description: 'A job of the service, or work done on an organisation\'s behalf; `actorId` names it.' },
  },
});

/** A JSON value an entry's `details` may hold: never personal data, a key or a secret. */
export type AuditValue = string | number | boolean | null | AuditValue[] | { [key: string]: AuditValue };
export type AuditDetails = { [key: string]: AuditValue };

@ObjectType({ description: 'One entry of a tamper-evident audit log: each entry hashes its predecessor (docs/personal-data.md).' })
export class AuditEntry {
  @Field(() => ID, { description: 'The entry (UUID).' })
  id!: string;

  @Field(() => ID, { nullable: true, description: "The company whose chain holds it; null on the platform's chain." })
  companyId!: string | null;

  @Field(() => Int, { description: 'Its place in its chain: 1, 2, 3... without gaps.' })
  sequence!: number;

  @Field(() => Date, { description: 'When the change was made.' })
  at!: Date;

  @Field(() => AuditActorType, { description: 'Who made it.' })
  actorType!: AuditActorType;

  @Field(() => String, { nullable: true, description: "The user's id (USER) or the job's name (SYSTEM); null for OPERATOR." })
  actorId!: string | null;

  @Field(() => ID, { nullable: true, description: 'The API key the user acted with (its id, never the key).' })
  apiKeyId!: string | null;

  @Field(() => String, { description: 'What was done, e.g. `api_key.created`, `user.role_changed`, `settings.routing_changed`, `import.run`.' })
  action!: string;

  @Field(() => String, { description: 'The kind of record it was done to, e.g. `api_key`, `user`, `company`, `site_key`.' })
  targetType!: string;

  @Field(() => String, { nullable: true, description: 'The id of that record.' })
  targetId!: string | null;

  @Field(() => JSONScalar, { description: 'What changed: field names, old and new values of settings, counts. Never personal data or secrets.' })
  details!: AuditDetails;

  @Field(() => String, { description: "The SHA-256 (hex) of the previous entry's hash and this entry's content." })
  hash!: string;

  @Field(() => String, { description: "The previous entry's hash (64 zeros for the first entry)." })
  previousHash!: string;
}

@ObjectType({ description: 'A page of an audit log, newest first.' })
export class AuditLogPage {
  @Field(() => [AuditEntry], { description: 'The entries, highest sequence first.' })
  entries!: AuditEntry[];

  @Field(() => Boolean, { description: 'More entries follow: ask again with `after: endCursor`.' })
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true, description: 'The cursor of the last entry of this page (its sequence number), for `after`.' })
  endCursor!: string | null;
}

@InputType({ description: 'Which audit entries; all when left out. Every condition given must hold.' })
export class AuditLogWhere {
  @Field(() => [String], { nullable: true, description: 'Any of these actions, e.g. `["api_key.created", "api_key.revoked"]`.' })
  action?: string[] | null;

  @Field(() => String, { nullable: true, description: 'Done to records of this kind, e.g. `user`.' })
  targetType?: string | null;

  @Field(() => String, { nullable: true, description: 'Done to this record (its id).' })
  targetId?: string | null;

  @Field(() => String, { nullable: true, description: "Done by this actor (a user's id, or a job's name)." })
  actorId?: string | null;

  @Field(() => Date, { nullable: true, description: 'Made at or after this instant.' })
  atFrom?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Made before this instant.' })
  atTo?: Date | null;
}
