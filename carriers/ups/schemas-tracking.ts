/** UPS Tracking schemas (`GET /track/v1/details`, `/track/v1/reference/details`): the scans we read. */
import { Type, type Static } from '@sinclair/typebox';

const TrackAddress = Type.Object({
  addressLine1: Type.Optional(Type.String()),
  city: Type.Optional(Type.String()),
  stateProvince: Type.Optional(Type.String()),
  postalCode: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
  countryCode: Type.Optional(Type.String()),
});
const TrackStatus = Type.Object({
  type: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  statusCode: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  simplifiedTextDescription: Type.Optional(Type.String()),
});
export const TrackActivity = Type.Object({
  date: Type.Optional(Type.String({ pattern: '^\\d{8}$' })),
  time: Type.Optional(Type.String({ pattern: '^\\d{6}$' })),
  gmtDate: Type.Optional(Type.String({ pattern: '^\\d{8}$' })),
  gmtOffset: Type.Optional(Type.String()),
  gmtTime: Type.Optional(Type.String()),
  location: Type.Optional(Type.Object({ address: Type.Optional(TrackAddress), slic: Type.Optional(Type.String()) })),
  status: Type.Optional(TrackStatus),
  logicalScan: Type.Optional(Type.Boolean()),
});
export type TrackActivity = Static<typeof TrackActivity>;

export const TrackResponse = Type.Object({
  trackResponse: Type.Object({
    shipment: Type.Array(
      Type.Object({
        inquiryNumber: Type.Optional(Type.String()),
        package: Type.Optional(
          Type.Array(
            Type.Object({
              trackingNumber: Type.Optional(Type.String()),
              activity: Type.Optional(Type.Array(TrackActivity)),
              currentStatus: Type.Optional(TrackStatus),
              referenceNumber: Type.Optional(Type.Array(Type.Object({ number: Type.Optional(Type.String()), type: Type.Optional(Type.String()) }))),
              packageCount: Type.Optional(Type.Integer()),
            }),
          ),
        ),
        warnings: Type.Optional(Type.Array(Type.Object({ code: Type.Optional(Type.String()), message: Type.Optional(Type.String()) }))),
      }),
    ),
  }),
});
export type TrackResponse = Static<typeof TrackResponse>;
