import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../errors';

/** Largest accepted request body (SPEC's OpenAPI document: 413 above 1 MB). */
export const BODY_LIMIT_BYTES = 1_048_576;

const JSON_TYPES = ['application/json', 'application/*+json'];

function carriesBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * SPEC 1: request bodies are `application/json`. A body declared as anything else is 415; a body without
 * a Content-Type is read as JSON (older clients send none).
 */
export function requireJson(req: Request, _res: Response, next: NextFunction): void {
  const type = req.headers['content-type'];
  if (!carriesBody(req) || type === undefined || req.is(JSON_TYPES)) return next();
  next(new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${JSON.stringify(type)} is not supported: send application/json`));
}

/** The one JSON body parser of /v1 and /graphql: 415, then 413 above the limit, then 400 for malformed JSON. */
export function jsonBody(): RequestHandler[] {
  return [requireJson, express.json({ limit: BODY_LIMIT_BYTES, type: () => true })];
}
