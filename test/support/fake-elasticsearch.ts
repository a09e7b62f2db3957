import { Client, errors } from '@elastic/elasticsearch';
import Mock from '@elastic/elasticsearch-mock';

interface Request {
  method: string;
  path: string;
  body: any;
  querystring: Record<string, string>;
}

interface FakeIndex {
  definition: any;
  docs: Map<string, Record<string, unknown>>;
  settings: any[];
}

const notFound = (type: string, reason: string) =>
  new errors.ResponseError({ body: { error: { type, reason }, status: 404 }, statusCode: 404, headers: {}, warnings: null, meta: {} as any } as any);

/**
 * An in-memory stand-in for the parts of Elasticsearch the backend uses (indexes, aliases, bulk
 * writes), on the official client through @elastic/elasticsearch-mock. It stores what is written and
 * records every request; it does not evaluate queries (`_search` answers `searchResponse`).
 */
export class FakeElasticsearch {
  readonly mock = new Mock();
  readonly client: Client;
  readonly indices = new Map<string, FakeIndex>();
  readonly aliases = new Map<string, Set<string>>();
  readonly requests: Request[] = [];
  /** Upcoming bulk requests to answer with a 500. */
  failBulk = 0;
  /** Rewrites a bulk answer before it is sent (a peer answering other than it should). */
  bulkAnswer: (answer: { took: number; errors: boolean; items: any[] }) => unknown = (answer) => answer;
  /** Bulk items to refuse one by one (the request itself succeeds): the error type for this item, if any. */
  refuseItem: (item: { op: string; index: string; id: string }) => string | undefined = () => undefined;
  /** What `_cluster/health/<index>` answers; not green: a 408 with `timed_out: true`, as the engines do after the wait. */
  health: 'green' | 'yellow' | 'red' = 'green';
  /** Upcoming settings changes of the replica count to answer with a 500. */
  failReplicaSettings = 0;
  searchResponse: (req: Request) => unknown = () => ({ hits: { total: { value: 0, relation: 'eq' }, hits: [] } });

  constructor() {
    this.client = new Client({ node: 'http://elasticsearch.test:9200', Connection: this.mock.getConnection() });
    const on = (method: string, path: string, fn: (req: Request, parts: string[]) => unknown) =>
      this.mock.add({ method, path }, (req: any) => {
        this.requests.push(req);
        return fn(req, req.path.split('/').filter(Boolean)) as any;
      });

    on('HEAD', '/_alias/:name', (_r, [, name]) => (this.aliases.get(name)?.size ? '' : notFound('aliases_not_found_exception', name)));
    on('GET', '/_alias/:name', (_r, [, name]) => {
      const indices = this.aliases.get(name);
      if (!indices?.size) return notFound('aliases_not_found_exception', name);
      return Object.fromEntries([...indices].map((index) => [index, { aliases: { [name]: {} } }]));
    });
    on('POST', '/_aliases', (r) => {
      for (const action of r.body.actions) {
        const [kind, { index, alias }] = Object.entries(action)[0] as [string, { index: string; alias: string }];
        if (!this.indices.has(index)) return notFound('index_not_found_exception', index);
        const set = this.aliases.get(alias) ?? new Set<string>();
        if (kind === 'add') set.add(index);
        else set.delete(index);
        this.aliases.set(alias, set);
      }
      return { acknowledged: true };
    });
    on('GET', '/:index/_mapping', (_r, [name]) => {
      const names = this.aliases.get(name)?.size ? [...this.aliases.get(name)!] : this.indices.has(name) ? [name] : [];
      if (!names.length) return notFound('index_not_found_exception', name);
      return Object.fromEntries(names.map((index) => [index, { mappings: this.indices.get(index)!.definition?.mappings ?? {} }]));
    });
    on('POST', '/_bulk', (r) => this.bulk(r.body));
    on('PUT', '/_bulk', (r) => this.bulk(r.body));
    on('PUT', '/:index/_settings', (r, [index]) => {
      if ('number_of_replicas' in r.body && this.failReplicaSettings > 0) {
        this.failReplicaSettings--;
        return new errors.ResponseError({ body: { error: { type: 'illegal_state_exception' }, status: 500 }, statusCode: 500, headers: {}, warnings: null, meta: {} as any } as any);
      }
      this.indices.get(index)?.settings.push(r.body);
      return { acknowledged: true };
    });
    on('POST', '/:index/_flush', () => ({ _shards: { total: 1, successful: 1, failed: 0 } }));
    on('GET', '/:index/_flush', () => ({ _shards: { total: 1, successful: 1, failed: 0 } }));
    on('GET', '/_cluster/health/:index', (_r, [, , index]) => {
      if (!this.indices.has(index)) return notFound('index_not_found_exception', index);
      const body = { cluster_name: 'fake', status: this.health, timed_out: this.health !== 'green' };
      return this.health === 'green' ? body : new errors.ResponseError({ body, statusCode: 408, headers: {}, warnings: null, meta: {} as any } as any);
    });
    on('POST', '/:index/_refresh', () => ({ _shards: { total: 1, successful: 1, failed: 0 } }));
    on('GET', '/:index/_refresh', () => ({ _shards: { total: 1, successful: 1, failed: 0 } }));
    on('POST', '/:index/_search', (r) => this.searchResponse(r));
    on('PUT', '/:index', (r, [index]) => {
      if (this.indices.has(index)) {
        const body = { error: { type: 'resource_already_exists_exception', reason: `index [${index}] already exists` }, status: 400 };
        return new errors.ResponseError({ body, statusCode: 400, headers: {}, warnings: null, meta: {} } as any);
      }
      this.indices.set(index, { definition: r.body, docs: new Map(), settings: [] });
      return { acknowledged: true, index };
    });
    on('HEAD', '/:index', (_r, [index]) => (this.indices.has(index) ? '' : notFound('index_not_found_exception', index)));
    on('DELETE', '/:index', (_r, [names]) => {
      for (const index of names.split(',')) {
        this.indices.delete(index);
        for (const set of this.aliases.values()) set.delete(index);
      }
      return { acknowledged: true };
    });
  }

  /** The indexes an alias points at. */
  aliased(alias: string): string[] {
    return [...(this.aliases.get(alias) ?? [])];
  }

  docs(index: string): Map<string, Record<string, unknown>> {
    return this.indices.get(index)?.docs ?? new Map();
  }

  requestsTo(method: string, suffix: string): Request[] {
    return this.requests.filter((r) => r.method === method && r.path.endsWith(suffix));
  }

  private bulk(lines: any[]) {
    if (this.failBulk > 0) {
      this.failBulk--;
      return new errors.ResponseError({ body: { error: { type: 'es_rejected_execution_exception' }, status: 500 }, statusCode: 500, headers: {}, warnings: null, meta: {} } as any);
    }
    const items: any[] = [];
    for (let i = 0; i < lines.length; i++) {
      const [op, meta] = Object.entries(lines[i])[0] as [string, { _index: string; _id: string }];
      const index = this.indices.get(meta._index);
      const item = (status: number, error?: string) => items.push({ [op]: { _index: meta._index, _id: meta._id, status, ...(error ? { error: { type: error, reason: error } } : {}) } });
      const refused = this.refuseItem({ op, index: meta._index, id: meta._id });
      if (refused) {
        if (op !== 'delete') i++;
        item(400, refused);
        continue;
      }
      if (op === 'delete') {
        if (!index) item(404, 'index_not_found_exception');
        else item(index.docs.delete(meta._id) ? 200 : 404);
        continue;
      }
      const source = lines[++i];
      if (!index) item(404, 'index_not_found_exception');
      else if (op === 'create' && index.docs.has(meta._id)) item(409, 'version_conflict_engine_exception');
      else {
        index.docs.set(meta._id, source);
        item(op === 'create' ? 201 : 200);
      }
    }
    return this.bulkAnswer({ took: 1, errors: items.some((it) => Object.values(it)[0] && (Object.values(it)[0] as any).error), items });
  }
}
