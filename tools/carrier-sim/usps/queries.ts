import { round2 } from './http-io.js';
import type { UspsDesk, UspsReply } from './desk.js';
import { simEvents, simPrice, simZone, type MailClass } from './state.js';

/** The USPS simulator's reads: the base-rates search and tracking. */

export function rate(desk: UspsDesk, body: unknown): UspsReply {
  const q = body as Record<string, string & number>;
  const zone = simZone(q.originZIPCode, q.destinationZIPCode);
  const { price, fee } = simPrice(q.mailClass as MailClass, zone, q.weight, q.processingCategory === 'NONSTANDARD');
  return desk.reply(200, {
    totalBasePrice: round2(price + fee),
    rates: [
      {
        description: `${q.mailClass} ${q.processingCategory} Single-piece`,
        priceType: q.priceType,
        price,
        weight: q.weight,
        dimWeight: 0,
        fees: fee ? [{ name: 'Nonstandard Length > 22', price: fee }] : [],
        startDate: '2026-01-18',
        endDate: '',
        mailClass: q.mailClass,
        zone: String(zone).padStart(2, '0'),
        processingCategory: q.processingCategory,
        rateIndicator: q.rateIndicator,
        destinationEntryFacilityType: 'NONE',
      },
    ],
  });
}

export function track(desk: UspsDesk, trackingNumber: string, expand: string | null): UspsReply {
  const l = desk.books.byTracking(trackingNumber);
  if (!l) return desk.error(404, 'Resource Not Found', 'trackingNumber');
  const events = simEvents(l, desk.now(), desk.options.extraEvents?.(trackingNumber));
  if (expand !== 'DETAIL') {
    return desk.reply(200, { trackingNumber, eventSummaries: events.map((e) => `${String(e.eventType)}, ${String(e.eventCity)}`) });
  }
  const latest = events[0];
  return desk.reply(200, {
    trackingNumber,
    // The tracking document's `mailClass` list has no Ground Advantage; it is left out for that class.
    ...(l.mailClass === 'USPS_GROUND_ADVANTAGE' ? {} : { mailClass: l.mailClass }),
    destinationZIP: l.destinationZIP,
    originZIP: l.originZIP,
    status: latest?.eventType ?? 'Label Created',
    statusCategory: latest?.eventCode === '01' ? 'Delivered' : latest?.eventCode === 'GX' ? 'Pre-Shipment' : 'In Transit',
    trackingEvents: events,
  });
}
