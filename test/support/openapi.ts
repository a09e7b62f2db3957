import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument, type OpenApiDocument } from '../../src/rest/openapi';
import { openApiLists } from '../../src/modules';

const COMPONENTS_ID = 'https://leadnet.invalid/openapi/components.json';

interface Route {
  template: string;
  regex: RegExp;
  params: number;
  item: Record<string, any>;
}

/**
 * Checks REST responses against an OpenAPI 3.1 document: the concrete path is matched to a templated
 * path, the status to a documented response, and the body is validated with ajv (schemas compiled once).
 */
export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly routes: Route[];
  private readonly base: string;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(document.components.schemas ?? {}) });
    this.base = (document.servers?.[0]?.url ?? '').replace(/\/$/, '');
    this.routes = Object.entries(document.paths)
      .map(([template, item]) => {
        const params = (template.match(/\{[^}]+\}/g) ?? []).length;
        const pattern = template.split(/\{[^}]+\}/).map(escapeRegExp).join('[^/]+');
        return { template, regex: new RegExp(`^${pattern}$`), params, item };
      })
      // A literal segment wins over a template (`/a/search` before `/a/{id}`).
      .sort((a, b) => a.params - b.params);
  }

  /** Throws a readable error when the response is not one the document describes. */
  assert(method: string, rawPath: string, status: number, body: unknown): void {
    const requestPath = rawPath.split(/[?#]/)[0];
    const where = `${method.toUpperCase()} ${rawPath} -> ${status}`;
    if (!requestPath.startsWith(`${this.base}/`)) throw new Error(`OpenAPI: ${where}: path is not under ${this.base}`);
    const local = requestPath.slice(this.base.length).replace(/(.)\/$/, '$1');
    const route = this.routes.find((r) => r.regex.test(local));
    if (!route) throw new Error(`OpenAPI: ${where}: no documented path matches ${local}`);
    const operation = route.item[method.toLowerCase()];
    if (!operation) throw new Error(`OpenAPI: ${where}: ${method.toUpperCase()} is not documented on ${route.template}`);
    const code = String(status);
    const key = [code, `${code[0]}XX`, 'default'].find((k) => operation.responses?.[k]);
    if (!key) {
      throw new Error(
        `OpenAPI: ${where}: status ${status} is not documented for ${method.toUpperCase()} ${route.template} ` +
          `(documented: ${Object.keys(operation.responses ?? {}).join(', ')})\nbody: ${show(body)}`,
      );
    }
    const response = this.resolve(operation.responses[key]);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      if (!isEmpty(body)) throw new Error(`OpenAPI: ${where}: the documented response has no body, got ${show(body)}`);
      return;
    }
    const cacheKey = `${method.toLowerCase()} ${route.template} ${key}`;
    let validate = this.compiled.get(cacheKey);
    if (!validate) {
      validate = this.compile(schema);
      this.compiled.set(cacheKey, validate);
    }
    if (!validate(body)) {
      const errors = this.ajv.errorsText(validate.errors, { dataVar: 'body', separator: '\n  ' });
      throw new Error(
        `OpenAPI: ${where}: body does not match ${operation.operationId ?? route.template} response ${key}\n  ${errors}\nbody: ${show(body)}`,
      );
    }
  }

  /** A validator for any schema of the document (its `$ref`s into components resolve). */
  compile(schema: unknown): ValidateFunction {
    return this.ajv.compile(rewriteRefs(schema));
  }

  private resolve(response: any): any {
    const ref: string | undefined = response?.$ref;
    if (!ref) return response;
    const name = ref.replace('#/components/responses/', '');
    const target = this.document.components.responses?.[name];
    if (!target) throw new Error(`OpenAPI: unresolved ${ref}`);
    return this.resolve(target);
  }
}

/** `#/components/schemas/X` -> the same schema inside the components document registered with ajv. */
function rewriteRefs(value: any): any {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', `${COMPONENTS_ID}#/$defs/`) : rewriteRefs(v),
    ]),
  );
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isEmpty(body: unknown): boolean {
  return body === undefined || body === null || body === '' || (typeof body === 'object' && Object.keys(body).length === 0);
}

function show(body: unknown): string {
  const text = JSON.stringify(body, null, 2) ?? String(body);
  return text.length > 4000 ? `${text.slice(0, 4000)}\n... (${text.length} characters)` : text;
}

let shared: OpenApiValidator | undefined;

/** Checks a REST response against schema/openapi.json; `api()` in `test/support/app.ts` calls it on every response. */
export function assertMatchesOpenApi(method: string, path: string, status: number, body: unknown): void {
  shared ??= new OpenApiValidator(openApiDocument());
  shared.assert(method, path, status, body);
}
