import type { Config } from '../config';
import { setTracingOn } from '../tracing';

/** The longest attribute value a span keeps (a statement's text), unless `OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT` says otherwise. */
const ATTRIBUTE_VALUE_LENGTH_LIMIT = 2048;

/**
 * Registers the OpenTelemetry SDK when `config.tracing` asks for it: spans batched (`OTEL_BSP_*`, at most
 * 2,048 waiting: a receiver that is down loses spans, never memory) to an OTLP/HTTP receiver in
 * protobuf or JSON, sampled by `OTEL_TRACES_SAMPLER` (default: a partner's sampled `traceparent` is
 * followed, otherwise every request), W3C `traceparent` in and out. Returns the shutdown, which exports
 * what is waiting; null when tracing is off. The SDK is only loaded when it is on.
 */
export function startTracing(config: Config): (() => Promise<void>) | null {
  if (!config.tracing) return null;
  const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const exporter =
    config.tracing.protocol === 'http/json'
      ? new (require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
      : new (require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  // `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` win over the defaults.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'leadnet' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(exporter)],
    spanLimits: process.env.OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT ? undefined : { attributeValueLengthLimit: ATTRIBUTE_VALUE_LENGTH_LIMIT },
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  setTracingOn(true);
  return async () => {
    setTracingOn(false);
    await provider.shutdown();
  };
}
