// Writes schema/openapi.json from the REST resources, their search documents and the prose
// (`npm run openapi:emit`; src/rest/openapi-document.ts).
import 'reflect-metadata';
import fs from 'node:fs';
import { generateOpenApi, renderOpenApi } from '../src/rest/openapi-document';
import { OPENAPI_PATH } from '../src/rest/openapi';
import { openApiInputs } from '../src/modules/openapi';

fs.writeFileSync(OPENAPI_PATH, renderOpenApi(generateOpenApi(openApiInputs())));
console.log(`wrote ${OPENAPI_PATH}`);
