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

/** What a fire span says of each timer it fired (its link). */
export type LinkedTimer = Pick<ClaimedTimer, 'tenant' | 'queue' | 'partition' | 'timerKey' | 'txn' | 'messageId' | 'traceparent'>;

const FIRE_ATTRIBUTES = {
  'messaging.system': MESSAGING_SYSTEM,
  'messaging.operation.type': 'send',
  'messaging.operation.name': 'fire',
} as const;

const firedAttributes = (fired: FireResult) => ({
  'queen.fired': fired.deleted,
  'queen.inserted': fired.inserted,
  'queen.collided': fired.collided,
});

/**
 * Runs one fire batch inside its span. The per-timer work (parsing each stored traceparent, the
 * links and their attributes) is done only when the span records: with no SDK registered the
 * sweeper's hot path pays for one no-op span, not a pass over the batch. Links are added after
 * the span starts, so a sampler does not see them (a head sampler decides on the parent, which a
 * fire batch does not have).
 */
export async function fireSpan(rows: ClaimedTimer[], parent: Context | undefined, fire: () => Promise<FireResult>): Promise<FireResult> {
  const attributes = { ...FIRE_ATTRIBUTES, 'messaging.batch.message_count': rows.length };
  return inSpan('fire timers', { kind: SpanKind.PRODUCER, attributes, parent }, async (span: Span) => {
    if (span.isRecording()) describeBatch(span, rows);
    const fired = await fire();
    span.setAttributes(firedAttributes(fired));
    return fired;
  });
}

/**
 * The span of a batch that one statement chose and fired (fireDue.ts): its timers are known only
 * once it has run, so the span is recorded then, from `sentAt`, as a claim's is (claimSpan): a
 * batch that found nothing due records nothing, nor does one the statement refused (undefined:
 * its two-statement fire records its own). `described`: the fired timers, when the statement was
 * asked for them (tracingInstalled).
 */
export async function firedSpan<T extends { taken: number; described?: LinkedTimer[]; fired: FireResult }>(
  sentAt: number,
  fire: () => Promise<T | undefined>,
): Promise<T | undefined> {
  let done: T | undefined;
  try {
    done = await fire();
  } catch (err) {
    const span = tracer.startSpan('fire timers', { kind: SpanKind.PRODUCER, startTime: sentAt, attributes: FIRE_ATTRIBUTES });
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
    span.end();
    throw err;
  }
  if (!done || done.taken === 0) return done;
  const attributes = { ...FIRE_ATTRIBUTES, 'messaging.batch.message_count': done.taken, ...firedAttributes(done.fired) };
  const span = tracer.startSpan('fire timers', { kind: SpanKind.PRODUCER, startTime: sentAt, attributes });
  if (span.isRecording() && done.described) describeBatch(span, done.described);
  span.end();
  return done;
}

/** The batch's links (at most MAX_LINKS, the rest counted) and what its timers share. */
function describeBatch(span: Span, rows: LinkedTimer[]): void {
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
