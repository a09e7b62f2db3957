import { Field, ObjectType } from 'type-graphql';
import { ApiKey } from './api-key.entity';

/** A freshly generated key: the stored record and the plain key, which is never shown again. */
@ObjectType({ description: 'A key just generated: its record and the plain key, which is never shown again.' })
export class GeneratedApiKey {
  @Field(() => ApiKey, { description: 'The stored record (prefix, label, dates).' })
  apiKey!: ApiKey;

  @Field(() => String, { description: 'The key to send as `X-Api-Key`; shown only this once.' })
  plainKey!: string;
}
