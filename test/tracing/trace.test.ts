// One purchase is one trace: the API's request span, the Temporal client call, the workflow and its
// activities on the workers, the card and carrier HTTP calls and the database queries all share one
// trace id, and the request span carries the request id. Spans go to an in-memory exporter.
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../../runtime/index.js';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestStack } from '../support/stack.js';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let stack: TestStack;
beforeAll(async () => {
  tracing = startTracing({ serviceName: 'parcel-shipping-test', exporter });
  stack = await startTestStack({}, { tracing });
});
afterAll(async () => {
  await stack?.stop();
  await tracing?.shutdown();
});

describe('tracing', () => {
  it('shows one card-funded live purchase as one trace from the API through the workers', async () => {
    const acct = await createAccount(stack, { funding: 'card' });
    const q = await call(stack, 'POST', '/api/v1/quotes', { key: acct.liveKey, body: { from: address(), to: address(), parcel: parcel() } });
    const buy = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: q.body.data[0].service.code, from: address(), to: address(), parcel: parcel() },
    });
    expect(buy.status, buy.text).toBe(201);
    const requestId = String(buy.headers['request-id']);

    const request = exporter.getFinishedSpans().find((s) => s.attributes.request_id === requestId);
    expect(request, 'the request span').toBeDefined();
    expect(request!.kind).toBe(SpanKind.SERVER);
    expect(request!.name).toBe('POST /api/v1/shipments');
    // (Its parent, if any, is the test's own HTTP client span: the API continues a caller's traceparent.)
    const traceId = request!.spanContext().traceId;
    const inTrace = () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const has = (spans: ReadableSpan[], test: (s: ReadableSpan) => boolean) => spans.some(test);

    // Workflow spans leave the sandbox through a sink once their task completes: wait for them.
    const spans = await eventually(async () => {
      const all = inTrace();
      const http = all.filter((s) => s.kind === SpanKind.CLIENT && String(s.attributes['url.full'] ?? '').startsWith(stack.simUrl));
      const ready =
        // The workflow's own spans (it schedules each activity in one), from the workflow sandbox.
        has(all, (s) => s.name.startsWith('StartActivity:')) &&
        has(all, (s) => s.name.startsWith('RunActivity:')) &&
        has(http, (s) => String(s.attributes['url.full']).includes('/cardpay/')) &&
        has(http, (s) => !String(s.attributes['url.full']).includes('/cardpay/'));
      return ready ? all : undefined;
    });
    const names = spans.map((s) => s.name);
    expect(names.includes('UpdateWithStartWorkflow:purchase'), names.join(', ')).toBe(true);
    expect(has(spans, (s) => s.attributes['db.system'] === 'postgresql'), 'a database query in the trace').toBe(true);
    // The Temporal call is made inside the request span; the workflow, its activities and their
    // HTTP and database calls follow it in the same trace (the workflow's run span ends only when the
    // shipment's life does, so it is not exported yet).
    const update = spans.find((x) => x.name === 'UpdateWithStartWorkflow:purchase')!;
    expect(update.parentSpanId).toBe(request!.spanContext().spanId);
    const activity = spans.find((x) => x.name === 'RunActivity:buyLabel')!;
    const scheduled = spans.find((x) => x.spanContext().spanId === activity.parentSpanId);
    expect(scheduled?.name).toBe('StartActivity:buyLabel');
    const carrierCall = spans.find((x) => x.kind === SpanKind.CLIENT && String(x.attributes['url.full']).includes('/labels'));
    expect(carrierCall?.parentSpanId).toBe(activity.spanContext().spanId);
  });
});
