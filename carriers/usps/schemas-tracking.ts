/** USPS tracking schemas (`GET /tracking/v3/tracking/{trackingNumber}?expand=DETAIL`): the scans we read. */
import { Type, type Static } from '@sinclair/typebox';
import { open } from './schemas-common.js';

export const UspsTrackingEvent = Type.Object(
  {
    eventType: Type.Optional(Type.String()),
    eventTimestamp: Type.Optional(Type.String()),
    GMTTimestamp: Type.Optional(Type.String()),
    GMTOffset: Type.Optional(Type.String()),
    eventCountry: Type.Optional(Type.String()),
    eventCity: Type.Optional(Type.String()),
    eventState: Type.Optional(Type.String()),
    eventZIP: Type.Optional(Type.String()),
    firm: Type.Optional(Type.String({ maxLength: 50 })),
    name: Type.Optional(Type.String()),
    authorizedAgent: Type.Optional(Type.Boolean()),
    eventCode: Type.Optional(Type.String()),
    actionCode: Type.Optional(Type.String()),
    reasonCode: Type.Optional(Type.String()),
  },
  open,
);
export type UspsTrackingEvent = Static<typeof UspsTrackingEvent>;

/** `TrackingDetails`: `trackingEvents` newest first, at most 99. */
export const UspsTrackingDetails = Type.Object(
  {
    trackingNumber: Type.Optional(Type.String()),
    mailClass: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    statusCategory: Type.Optional(Type.String()),
    statusSummary: Type.Optional(Type.String()),
    trackingEvents: Type.Optional(Type.Array(UspsTrackingEvent, { minItems: 0, maxItems: 99 })),
  },
  open,
);
export type UspsTrackingDetails = Static<typeof UspsTrackingDetails>;
