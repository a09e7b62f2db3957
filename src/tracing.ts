import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span } from '@opentelemetry/api';

/**
 * OpenTelemetry traces (docs/tracing.md): off unless the standard `OTEL_*` variables ask for an OTLP
 * exporter. Off, every hook below is one boolean test: no span, no context, no header is made. On, a
 * request is one trace: the HTTP server span, its GraphQL operation, its SQL statements and engine
 * calls, and later the outbox deliveries of the events it wrote (their parent is kept with the event).
 */
const tracer = trace.getTracer('leadnet');
let on = false;

/** Whether spans are made (a tracer provider is registered by `startTracing`, src/observability/tracing-sdk.ts). */
export function tracingOn(): boolean {
  return on;
}

/** Set by `startTracing` and its shutdown only. */
export function setTracingOn(value: boolean): void {
  on = value;
}

/** The span of the work running now, if it is sampled (recorded and exported). */
export function sampledSpan(): Span | undefined {
  if (!on) return undefined;
  const span = trace.getSpan(context.active());
  return span?.isRecording() ? span : undefined;
}

/** The W3C `traceparent` of the sampled span running now (what an event keeps for its deliveries), else null. */
export function currentTraceparent(): string | null {
  const span = sampledSpan();
  if (!span) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent ?? null;
}

/** The context a `traceparent` names (kept with an event, or sent by a partner); the root context for none. */
export function contextOf(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** The context of the work running now, to carry into work done later for it (undefined when off). */
export function currentContext(): Context | undefined {
  return on ? context.active() : undefined;
}

/** Links to the sampled spans of `contexts` (the requests a shared piece of work serves). */
export function linksTo(contexts: ReadonlyArray<Context | undefined>): Link[] {
  const links: Link[] = [];
  for (const c of contexts) {
    const span = c && trace.getSpan(c);
    if (span?.isRecording()) links.push({ context: span.spanContext() });
  }
  return links;
}

/** `headers` with the `traceparent` (and `tracestate`) of `span`, for a request it makes. */
export function withTraceHeaders(headers: Record<string, string>, span: Span | undefined): Record<string, string> {
  if (!span) return headers;
  const carrier = { ...headers };
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; by default the span running now. */
  parent?: Context;
  /** Other traces this work serves (the requests of a group of creates). */
  links?: Link[];
  /** Only as a child of a sampled span: statements and engine calls of background polling make no traces of their own. */
  childOnly?: boolean;
}

/**
 * `work` inside a span named `name`, which ends when it settles: an error (thrown or rejected) sets the
 * span's status and is recorded with its type only (messages may carry request values). With tracing
 * off, or `childOnly` outside a sampled span, `work` runs as it is.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  const span = startSpan(name, options);
  if (!span) return work(undefined);
  return context.with(trace.setSpan(options.parent ?? context.active(), span), async () => {
    try {
      return await work(span);
    } catch (e) {
      failed(span, e);
      throw e;
    } finally {
      span.end();
    }
  });
}

/** Starts a span the caller ends (a callback-style statement, an HTTP request's span); undefined when off or not a child. */
export function startSpan(name: string, options: SpanOptions): Span | undefined {
  if (!on) return undefined;
  const parent = options.parent ?? context.active();
  if (options.childOnly && !trace.getSpan(parent)?.isRecording()) return undefined;
  return tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links }, parent);
}

/** `fn` run in the context `ctx` (one carried from an earlier request), or in the current one. */
export function inContext<T>(ctx: Context | undefined, fn: () => T): T {
  return ctx ? context.with(ctx, fn) : fn();
}

/** `fn` run with `span` as the current span (its parent context kept otherwise). */
export function withSpan<T>(span: Span | undefined, fn: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/** Marks `span` failed by `error`: its class and, for PostgreSQL and engine errors, their code; never the message. */
export function failed(span: Span | undefined, error: unknown): void {
  if (!span) return;
  const e = error as { name?: string; code?: unknown } | null;
  const type = typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : (e?.name ?? 'Error');
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

export { ROOT_CONTEXT, SpanKind, SpanStatusCode };
