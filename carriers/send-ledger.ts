import { CarrierError, type PurchaseRequest, type SendLedger } from './types.js';

/**
 * The longest a purchase request may follow the mark of its send in the ledger (`SendLedger`): one not
 * on its way by then is not sent (the attempt fails as retryable, nothing sent). So a later attempt
 * counts an earlier one's window from its mark plus this, and the window keeps its margin over the
 * carrier's processing time however long the mark's statement took.
 */
export const SEND_SLACK_MS = 1_000;

const notSent = (carrierCode: string, why: string) => new CarrierError('retryable', `${why}; nothing was sent`, { carrierCode });

/**
 * Starts this attempt in the purchase's ledger of sends, which fences every earlier attempt off.
 * Answers when the latest earlier attempt whose outcome is unknown may have sent its request (epoch
 * ms, its mark plus the slack), or null when none can have: none marked a send, or this is a first
 * attempt. Throws (retryable, nothing sent) when a later attempt has started already.
 */
export async function startAttempt(carrierCode: string, request: PurchaseRequest, sends: SendLedger): Promise<number | null> {
  const givenAt = request.earlierAttemptAt ? Date.parse(request.earlierAttemptAt) : Number.NaN;
  // An earlier attempt the ledger has not seen (of code that kept none) counts as sent when given up.
  const unknownSince = request.earlierAttempt ? new Date(Number.isFinite(givenAt) ? Math.min(givenAt, Date.now()) : Date.now()) : undefined;
  const started = await sends.start(unknownSince);
  if (started.superseded) throw notSent(carrierCode, `a later attempt at ${request.reference} has started`);
  if (!request.earlierAttempt || started.sentMsAgo === null) return null;
  return Date.now() - started.sentMsAgo + SEND_SLACK_MS;
}

/**
 * Marks this attempt's send, just before it goes. Throws (retryable, nothing sent) when a later
 * attempt has started, or when the mark took longer than the slack.
 */
export async function markSend(carrierCode: string, reference: string, sends: SendLedger): Promise<void> {
  const from = Date.now();
  if (!(await sends.markSend())) throw notSent(carrierCode, `a later attempt at ${reference} has started`);
  if (Date.now() - from > SEND_SLACK_MS) throw notSent(carrierCode, `the send's mark took over ${SEND_SLACK_MS} ms`);
}

/**
 * Looks a purchase up until `found` holds or `until` (epoch ms) has passed, `pauseMs` apart, and
 * answers the last lookup: a request an earlier attempt sent may still be in the making at a carrier
 * that takes no idempotency key. A failed lookup proves nothing either way, so it is looked up again
 * while the window is open and thrown only after it. With `until` past, one lookup.
 */
export async function lookUpUntil<T>(lookup: () => Promise<T>, found: (answer: T) => boolean, until: number, pauseMs: number): Promise<T> {
  for (;;) {
    const answer = await lookup().then(
      (value) => ({ value }),
      (err: unknown) => {
        if (Date.now() >= until) throw err;
        return undefined;
      },
    );
    if (answer && (found(answer.value) || Date.now() >= until)) return answer.value;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pauseMs, Math.max(0, until - Date.now()))));
  }
}
