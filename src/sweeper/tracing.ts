// The sweeper's spans (docs/tracing.md): one PRODUCER span per fire batch, linked to the
// traceparent each timer was scheduled with (a link, not a parent: a batch fires timers of many
// traces, and the request that scheduled them ended long ago). At most MAX_LINKS links per batch.
import {
  context,
  inSpan,
  MAX_LINKS,
  MESSAGING_SYSTEM,
  parseTraceparent,
  SpanKind,
  SpanStatusCode,
  trace,
  tracer,
  type Context,
  type Span,
} from '../tracing.ts';
import type { ClaimedTimer } from './claimDue.ts';
import type { FireResult } from './fireClaimed.ts';

/**
 * Records one claim as an INTERNAL span from the instant it was sent to now, once its answer is
 * known: a claim that took timers, or one that failed. An empty claim records nothing (an idle
 * sweeper claims up to once a second, and a span for each would bury the ones that fired). The
 * context returned is the claim's: its batch's fire spans are its children. Undefined when
 * nothing records (no SDK, or an empty claim).
 */
export function claimSpan(sentAt: number, limit: number, leaseMs: number, claimed: number | undefined, err?: unknown): Context | undefined {
  if (claimed === 0) return undefined;
  const span = tracer.startSpan('claim timers', {
    kind: SpanKind.INTERNAL,
    startTime: sentAt,
    attributes: {
      'messaging.system': MESSAGING_SYSTEM,
      'messaging.operation.name': 'claim',
      'queen.batch_limit': limit,
      'queen.lease_ms': leaseMs,
      ...(claimed !== undefined ? { 'messaging.batch.message_count': claimed } : {}),
    },
  });
  if (err !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
  span.end();
  // A sampled-out claim still parents its fires, so a parent-based sampler drops them with it.
  return trace.isSpanContextValid(span.spanContext()) ? trace.setSpan(context.active(), span) : undefined;
}

/**
 * Runs one fire batch inside its span. The per-timer work (parsing each stored traceparent, the
 * links and their attributes) is done only when the span records: with no SDK registered the
 * sweeper's hot path pays for one no-op span, not a pass over the batch. Links are added after
 * the span starts, so a sampler does not see them (a head sampler decides on the parent, which a
 * fire batch does not have).
 */
export async function fireSpan(rows: ClaimedTimer[], parent: Context | undefined, fire: () => Promise<FireResult>): Promise<FireResult> {
  const attributes = {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.operation.type': 'send',
    'messaging.operation.name': 'fire',
    'messaging.batch.message_count': rows.length,
  };
  return inSpan('fire timers', { kind: SpanKind.PRODUCER, attributes, parent }, async (span: Span) => {
    if (span.isRecording()) describeBatch(span, rows);
    const fired = await fire();
    span.setAttributes({ 'queen.fired': fired.deleted, 'queen.inserted': fired.inserted, 'queen.collided': fired.collided });
    return fired;
  });
}

/** The batch's links (at most MAX_LINKS, the rest counted) and what its timers share. */
function describeBatch(span: Span, rows: ClaimedTimer[]): void {
  const links = [];
  let dropped = 0;
  for (const row of rows) {
    const sc = parseTraceparent(row.traceparent);
    if (!sc) continue;
    if (links.length >= MAX_LINKS) {
      dropped++;
      continue;
    }
    // Per-timer attributes on its link: the batch spans many tenants and queues.
    links.push({
      context: sc,
      attributes: {
        'queen.tenant': row.tenant,
        'messaging.destination.name': row.queue,
        'queen.partition': row.partition,
        'queen.timer_key': row.timerKey,
        'queen.txn': row.txn,
        'messaging.message.id': row.messageId,
      },
    });
  }
  span.addLinks(links);
  const first = rows[0];
  const single = rows.every((r) => r.tenant === first?.tenant && r.queue === first?.queue);
  span.setAttributes({
    'queen.links_dropped': dropped,
    ...(single && first ? { 'queen.tenant': first.tenant, 'messaging.destination.name': first.queue } : {}),
    ...(rows.length === 1 && first
      ? { 'queen.partition': first.partition, 'queen.timer_key': first.timerKey, 'queen.txn': first.txn }
      : {}),
  });
}
