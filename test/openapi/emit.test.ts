import 'reflect-metadata';
import fs from 'node:fs';
import { OPENAPI_PATH } from '../../src/rest/openapi';
import { generateOpenApi, renderOpenApi, type OpenApiInputs } from '../../src/rest/openapi-document';
import { openApiInputs } from '../../src/modules/openapi';
import { leadRest } from '../../src/modules/lead/lead.rest';
import { leadSearch } from '../../src/modules/lead/lead.search';
import { LIMITS } from '../../src/limits';
import { Kind, parse, type GraphQLObjectType } from 'graphql';
import { readDocuments } from '../../src/rest/openapi-document';
import { restDocumentFiles } from '../../src/rest/operations';

test('schema/openapi.json is the generator\'s output (run `npm run openapi:emit` after changing a resource, a search document or the prose)', () => {
  expect(fs.readFileSync(OPENAPI_PATH, 'utf8')).toBe(renderOpenApi(generateOpenApi(openApiInputs())));
});

describe('generator', () => {
  const inputs = openApiInputs();
  const only = (overrides: Partial<OpenApiInputs>) => generateOpenApi({ ...inputs, ...overrides });

  test('a resource\'s paths, methods, summaries and envelopes come from its RestResource', () => {
    const rest = { ...leadRest, operations: { list: 'ListLeads', show: 'ShowLead' }, associations: ['emails'], actions: [] };
    const doc = only({ resources: [{ rest, search: leadSearch }] });
    // The prose's own paths (the contact form's challenge and post) follow the generated ones.
    const prose = ['/store_locator/challenge', '/store_locator/{id}/leads'];
    expect(Object.keys(doc.paths)).toEqual(['/leads', '/leads/{id}', '/store_locator', '/store_locator/{id}', ...prose]);
    // Each action is a path of its own after the record's, answered with the record.
    const withActions = only({ resources: [{ rest: { ...rest, actions: leadRest.actions }, search: leadSearch }] });
    expect(Object.keys(withActions.paths)).toEqual(['/leads', '/leads/{id}', ...leadRest.actions!.map((a) => `/leads/{id}/${a.name}`), '/store_locator', '/store_locator/{id}', ...prose]);
    expect(withActions.paths['/leads/{id}/outcome'].post).toMatchObject({ operationId: 'recordLeadOutcome', summary: "Record a lead's outcome" });
    expect(Object.keys(doc.paths['/leads'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/leads/{id}'])).toEqual(['parameters', 'get']);
    expect(doc.paths['/leads/{id}'].get).toMatchObject({ operationId: 'showLead', summary: 'Show a lead', tags: ['Leads'] });
    expect(doc.paths['/leads'].get.parameters[1].description).toMatch(/Associations: `emails`\.$/);
    expect(doc.components.schemas.LeadList.properties.leads.items).toEqual({ $ref: '#/components/schemas/Lead' });
  });

  test('a list names the fields of its search document; opts states the bounds of src/limits.ts', () => {
    const doc = generateOpenApi(inputs);
    const fields = doc.paths['/leads'].get['x-leadnet-fields'];
    expect(fields.where).toEqual(expect.arrayContaining(['status', 'created_at', 'emails']));
    expect(doc.components.parameters.opts.description).toContain(`nested at most ${LIMITS.maxWhereDepth} deep`);
    expect(doc.components.parameters.opts.description).toContain('operators `gt gte lt lte not in all exists prefix like ilike`');
  });

  test('a record has the keys its REST operation answers: those under @include are not required; drift stops the generator', () => {
    const lead = generateOpenApi(inputs).components.schemas.Lead;
    expect(lead.required).toEqual(['id', 'name', 'status', 'created_at', 'outcome', 'respond_by', 'breached', 'escalated_at']);
    expect(Object.keys(lead.properties)).toEqual(['id', 'name', 'status', 'created_at', 'outcome', 'respond_by', 'breached', 'escalated_at', 'phone_numbers', 'emails', 'location', 'assignee', 'lead_activities']);
    const prose = structuredClone(inputs.prose);
    prose.fields = { ...prose.fields, 'Lead.colour': { type: 'string' } };
    expect(() => only({ prose })).toThrow('openapi.prose.json refines Lead.colour, which the GraphQL schema does not have');
    const keys = structuredClone(inputs.prose);
    keys.components.schemas.Product = { properties: { colour: { type: 'string' } } };
    expect(() => only({ prose: keys })).toThrow(/^Product: its properties come from its REST operation and the GraphQL schema/);
  });

  test('a record\'s types, nullability and descriptions are the GraphQL fields\' it reads; nested selections are schemas named after their fragment or type', () => {
    const { schemas } = generateOpenApi(inputs).components;
    const lead = inputs.schema.getType('Lead') as GraphQLObjectType;
    expect(schemas.Lead.properties.name).toEqual({ type: ['string', 'null'], description: lead.getFields().name.description });
    expect(schemas.Lead.properties.created_at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schemas.Lead.properties.location).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/Location' }, { type: 'null' }] });
    expect(schemas.Lead.properties.emails).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/Email' } });
    // The timeline has no `lead`; the lead a lead activity embeds has no timeline.
    expect(schemas.Lead.properties.lead_activities.items).toEqual({ $ref: '#/components/schemas/LeadTimelineActivity' });
    expect(Object.keys(schemas.LeadTimelineActivity.properties)).not.toContain('lead');
    expect(Object.keys(schemas.EmbeddedLead.properties)).not.toContain('lead_activities');
    expect(schemas.CompanyRetailerLocation.properties.retailer_location_hours.items).toEqual({ $ref: '#/components/schemas/Hour' });
    expect(schemas.CompanyRetailer.properties.retailer_locations_count).toMatchObject({ type: 'integer', minimum: 0 });
    // A description naming a GraphQL field names the REST key instead.
    expect(schemas.LeadActivity.properties.source_type.description).toContain('`source_id`');
    expect(schemas.Lead.description).toMatch(/`phone_numbers`, `emails`, `location`, `assignee` and `lead_activities` are present unless `include` leaves them out\.$/);
    // A new GraphQL field selected by the REST fragment reaches the document with no prose.
    const documents = readDocuments(restDocumentFiles()).map((d) =>
      d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === 'RestProduct'
        ? { ...d, selectionSet: { ...d.selectionSet, selections: [...d.selectionSet.selections, parse('{ created_at: createdAt }', { noLocation: true }).definitions.flatMap((x: any) => x.selectionSet.selections)[0]] } }
        : d,
    );
    const product = only({ documents }).components.schemas.Product;
    expect(product.required).toContain('created_at');
    expect(product.properties.created_at).toMatchObject({ type: 'string', format: 'date-time' });
  });

  test('a resource the prose does not mention gets its tag, summaries, body and input schema from the code', () => {
    const prose = structuredClone(inputs.prose);
    delete prose.components.schemas.ProductBody;
    delete prose.components.schemas.ProductInput;
    delete prose.components.schemas.Product;
    prose.tags = prose.tags.filter((t) => t.name !== 'Products');
    for (const id of Object.keys(prose.operations)) if (/Products?$/.test(id)) delete prose.operations[id];
    const doc = only({ prose });
    expect(doc.tags).toContainEqual({ name: 'Products', description: expect.stringContaining("An item of a company's catalog") });
    expect(doc.paths['/products'].post).toMatchObject({ summary: 'Create a product', operationId: 'createProduct' });
    expect(doc.components.schemas.ProductBody).toMatchObject({ required: ['product'], properties: { product: { $ref: '#/components/schemas/ProductInput' } } });
    expect(doc.components.schemas.ProductInput.properties.sku).toMatchObject({ type: ['string', 'null'] });
    expect(doc.components.schemas.ProductInput.properties.collection_id).toMatchObject({ type: ['string', 'null'], format: 'uuid' });
  });

  test('an enum the prose names is filled in; an unknown one stops the generator', () => {
    const doc = generateOpenApi(inputs);
    expect(doc.components.schemas.LeadActivity.properties.type.enum).toContain('LeadActivity::QuoteRequest');
    const prose = structuredClone(inputs.prose);
    prose.fields = { ...prose.fields, 'Lead.status': { enum: '$Nope' } };
    expect(() => only({ prose })).toThrow(/unknown enum \$Nope/);
  });
});
