import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { inTurn } from '../../src/http/in-turn';

const req = {} as Request;
const res = {} as Response;
const run = (handler: RequestHandler) => new Promise<unknown[]>((resolve) => handler(req, res, ((...args: unknown[]) => resolve(args)) as NextFunction));

test('each handler runs after the one before calls next, then the caller goes on', async () => {
  const seen: string[] = [];
  const mark = (name: string): RequestHandler => (_req, _res, next) => {
    seen.push(name);
    setImmediate(next);
  };
  expect(await run(inTurn(mark('a'), mark('b'), mark('c')))).toEqual([]);
  expect(seen).toEqual(['a', 'b', 'c']);
});

test('an error, a throw or a rejected promise goes to the caller at once; the handlers after it do not run', async () => {
  const after = jest.fn();
  const boom = new Error('boom');
  expect(await run(inTurn((_q, _s, next) => next(boom), after))).toEqual([boom]);
  expect(await run(inTurn(() => { throw boom; }, after))).toEqual([boom]);
  expect(await run(inTurn(async () => { throw boom; }, after))).toEqual([boom]);
  expect(after).not.toHaveBeenCalled();
});

test('next("route") goes on to the next handler, as express skips to its next layer', async () => {
  const after = jest.fn((_q, _s, next: NextFunction) => next());
  expect(await run(inTurn((_q, _s, next) => next('route'), after))).toEqual([]);
  expect(after).toHaveBeenCalled();
});
