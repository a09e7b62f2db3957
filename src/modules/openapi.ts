import fs from 'node:fs';
import { buildSchema } from 'graphql';
import { LEAD_ACTIVITY_TYPES, SYSTEM_LEAD_ACTIVITY_TYPES } from './lead/lead-activity.entity';
import { openApiLists, restResources } from './index';
import { readDocuments, readProse, type OpenApiInputs } from '../rest/openapi-document';
import { restDocumentFiles } from '../rest/operations';
import { SCHEMA_FILE } from '../graphql/schema';

/**
 * What `schema/openapi.json` is generated from (`npm run openapi:emit`, src/rest/openapi-document.ts):
 * each /v1 resource of the module list with the search document its list reads, in SPEC 4.2 order, the REST documents
 * (which keys each record has; the GraphQL schema types and describes them), the enums the prose names, and the prose (src/rest/openapi.prose.json).
 */
export function openApiInputs(): OpenApiInputs {
  return {
    prose: readProse(),
    // The committed SDL (test/graphql/schema.test.ts keeps it the resolvers' output).
    schema: buildSchema(fs.readFileSync(SCHEMA_FILE, 'utf8')),
    documents: readDocuments(restDocumentFiles()),
    resources: restResources.map((rest) => ({ rest, search: openApiLists[rest.path] })),
    enums: { LeadActivityType: LEAD_ACTIVITY_TYPES, StoredLeadActivityType: [...LEAD_ACTIVITY_TYPES, ...SYSTEM_LEAD_ACTIVITY_TYPES] },
  };
}
