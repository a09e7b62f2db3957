import type { Server } from 'node:http';
import type { Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Config } from './config';
import type { ContextDeps } from './context';
import { leaderLocked, type Worker } from './db/leader';

/** What a module's start, jobs and routes are handed: the app's context dependencies and its schema. */
export interface Runtime {
  /** The same object the requests' contexts are built from (ORM, config, search backend, geocoder, callers). */
  deps: ContextDeps;
  schema: GraphQLSchema;
}

/** What a module started: how to stop it and, for a subscription transport, how to serve it. */
export interface Running {
  /** Resolves when its work in flight is done. */
  stop(): Promise<void>;
  /** Serves its WebSocket transport on the listening server (`App.attach`); returns what closes it. */
  serve?(server: Server): () => Promise<void>;
  /** The live subscriptions it holds now (`App.subscriptions()`). */
  subscriptions?(): number;
}

/** A background job that one process at a time runs: a standby takes over when the leader dies (src/db/leader.ts). */
export interface Job {
  /** For the logs, e.g. `webhook-worker`. */
  name: string;
  /** The advisory lock key held by the process that runs it. */
  leader: number;
  /** Whether this process takes part at all (e.g. `WEBHOOK_WORKER=false` leaves it to other processes). */
  enabled(config: Config): boolean;
  create(runtime: Runtime): Worker;
}

/** What a module runs in the app's process beside the requests; `buildApp` starts and stops it (startModules). */
export interface RuntimeContribution {
  /** Starts what runs beside the requests and is not a leader-locked job (a listener, a worker that logs its own switches). */
  start?(runtime: Runtime): Promise<Running> | Running;
  /** Its background jobs, each under its leader lock. */
  jobs?: readonly Job[];
  /** Routes of its own outside /v1 and /graphql (a page an e-mail links), mounted after the start page. */
  routes?(runtime: Runtime): Router;
}

/** Everything `startModules` started, as one. */
export interface Started {
  /** Stops each part in the order it started (none waits for another), each once its work in flight is done. */
  stop(): Promise<void>;
  /** Serves every part's WebSocket transport on `server`; returns what closes them all. */
  serve(server: Server): () => Promise<void>;
  /** The live subscriptions held now, over all parts. */
  subscriptions(): number;
}

/**
 * Starts each contribution in list order: its `start` (awaited), then its enabled jobs, each under its
 * leader lock (`leaderLocked`: started here, it runs the job once this process holds the lock). When a
 * start fails, what already started is stopped and the error is thrown.
 */
export async function startModules(parts: readonly RuntimeContribution[], runtime: Runtime): Promise<Started> {
  const { orm, config } = runtime.deps;
  const running: Running[] = [];
  const stop = async () => {
    for (const part of running) await part.stop();
  };
  try {
    for (const part of parts) {
      if (part.start) running.push(await part.start(runtime));
      for (const job of part.jobs ?? []) {
        if (!job.enabled(config)) continue;
        const lock = leaderLocked(orm, job.leader, job.create(runtime), job.name, config.workerLockRetryMs);
        lock.start();
        running.push({ stop: () => lock.stop() });
      }
    }
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
  return {
    stop,
    serve(server) {
      const closers = running.flatMap((part) => (part.serve ? [part.serve(server)] : []));
      return async () => {
        await Promise.all(closers.map((close) => close()));
      };
    },
    subscriptions: () => running.reduce((sum, part) => sum + (part.subscriptions?.() ?? 0), 0),
  };
}
