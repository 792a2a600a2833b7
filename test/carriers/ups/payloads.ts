import type { Address, Parcel } from '../../../domain/index.js';

/** Canned inputs and UPS answers, written from UPS's Rating, Shipping and Tracking documents. */

export const ACCOUNT = 'A1B2C3';

export const US_FROM = { name: 'Acme Widgets', line1: '2311 York Rd', line2: 'Suite 200', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' } as Address;
export const US_TO = { name: 'Happy Dog Pet Supply', line1: '123 Main St', city: 'Alpharetta', state: 'ga', postcode: '30005-1234', country: 'US' } as Address;
export const GB_FROM: Address = { name: 'Tower Books', line1: '1 Tower Bridge Rd', city: 'London', postcode: 'SE1 2UP', country: 'GB' };
export const GB_TO: Address = { name: 'Northern Lights Ltd', line1: '5 Deansgate', city: 'Manchester', postcode: 'M3 2BW', country: 'GB' };

/** 2.5 kg, 300 × 200 × 150 mm: 5.6 lb (5.51 rounded up to a tenth), 12 × 8 × 6 in (11.8, 7.9, 5.9 rounded up). */
export const PARCEL: Parcel = { weight_g: 2500, length_mm: 200, width_mm: 300, height_mm: 150 };

export const SHIPMENT_ID = 'shp_01jz8q3v5k9m2n4p6r8s0t2v4w';

export const RATE_SHOP_ANSWER = {
  RateResponse: {
    Response: {
      ResponseStatus: { Code: '1', Description: 'Success' },
      Alert: [{ Code: '110971', Description: 'Your invoice may vary from the displayed reference rates' }],
      TransactionReference: { CustomerContext: 'quote' },
    },
    RatedShipment: [
      {
        Service: { Code: '03', Description: 'UPS GROUND' },
        RatedShipmentAlert: [{ Code: '110971', Description: 'Your invoice may vary from the displayed reference rates' }],
        BillingWeight: { UnitOfMeasurement: { Code: 'LBS', Description: 'Pounds' }, Weight: '6.0' },
        TransportationCharges: { CurrencyCode: 'USD', MonetaryValue: '14.58' },
        BaseServiceCharge: { CurrencyCode: 'USD', MonetaryValue: '12.35' },
        ServiceOptionsCharges: { CurrencyCode: 'USD', MonetaryValue: '0.00' },
        TotalCharges: { CurrencyCode: 'USD', MonetaryValue: '14.58' },
        NegotiatedRateCharges: { TotalCharge: { CurrencyCode: 'USD', MonetaryValue: '13.12' } },
        GuaranteedDelivery: { BusinessDaysInTransit: '3' },
        RatedPackage: [{ TransportationCharges: { CurrencyCode: 'USD', MonetaryValue: '14.58' }, Weight: '5.6' }],
      },
      {
        Service: { Code: '01', Description: 'UPS NEXT DAY AIR' },
        BillingWeight: { UnitOfMeasurement: { Code: 'LBS', Description: 'Pounds' }, Weight: '6.0' },
        TransportationCharges: { CurrencyCode: 'USD', MonetaryValue: '71.20' },
        ServiceOptionsCharges: { CurrencyCode: 'USD', MonetaryValue: '0.00' },
        TotalCharges: { CurrencyCode: 'USD', MonetaryValue: '71.20' },
        GuaranteedDelivery: { BusinessDaysInTransit: '1', DeliveryByTime: '10:30 A.M.' },
        RatedPackage: [{}],
      },
      {
        // Next Day Air Saver: UPS offers it, we do not sell it.
        Service: { Code: '13', Description: 'UPS NEXT DAY AIR SAVER' },
        BillingWeight: { UnitOfMeasurement: { Code: 'LBS', Description: 'Pounds' }, Weight: '6.0' },
        TransportationCharges: { CurrencyCode: 'USD', MonetaryValue: '63.05' },
        ServiceOptionsCharges: { CurrencyCode: 'USD', MonetaryValue: '0.00' },
        TotalCharges: { CurrencyCode: 'USD', MonetaryValue: '63.05' },
        RatedPackage: [{}],
      },
      {
        Service: { Code: '12', Description: 'UPS 3 DAY SELECT' },
        BillingWeight: { UnitOfMeasurement: { Code: 'LBS', Description: 'Pounds' }, Weight: '6.0' },
        TransportationCharges: { CurrencyCode: 'USD', MonetaryValue: '30.4' },
        ServiceOptionsCharges: { CurrencyCode: 'USD', MonetaryValue: '0.00' },
        TotalCharges: { CurrencyCode: 'USD', MonetaryValue: '30.4' },
        RatedPackage: [{}],
      },
    ],
  },
};

export const SHIP_ANSWER = {
  ShipmentResponse: {
    Response: { ResponseStatus: { Code: '1', Description: 'Success' }, TransactionReference: { CustomerContext: SHIPMENT_ID } },
    ShipmentResults: {
      ShipmentCharges: {
        TransportationCharges: { CurrencyCode: 'USD', MonetaryValue: '14.58' },
        ServiceOptionsCharges: { CurrencyCode: 'USD', MonetaryValue: '0.00' },
        TotalCharges: { CurrencyCode: 'USD', MonetaryValue: '14.58' },
      },
      NegotiatedRateCharges: { TotalCharge: { CurrencyCode: 'USD', MonetaryValue: '13.12' } },
      BillingWeight: { UnitOfMeasurement: { Code: 'LBS', Description: 'Pounds' }, Weight: '     6.0' },
      ShipmentIdentificationNumber: '1ZA1B2C30312345675',
      PackageResults: [
        {
          TrackingNumber: '1ZA1B2C30312345675',
          ServiceOptionsCharges: { CurrencyCode: 'USD', MonetaryValue: '0.00' },
          ShippingLabel: { ImageFormat: { Code: 'ZPL', Description: 'ZPL' }, GraphicImage: 'XlhBXkZPNTAsNTBeRkQxWkExQjJDMzAzMTIzNDU2NzVeRlNeWFo=' },
        },
      ],
    },
  },
};

export const VOID_ANSWER = {
  VoidShipmentResponse: {
    Response: { ResponseStatus: { Code: '1', Description: 'Success' } },
    SummaryResult: { Status: { Code: '1', Description: 'Voided' } },
  },
};

export const RECOVERY_ANSWER = {
  LabelRecoveryResponse: {
    Response: { ResponseStatus: { Code: '1', Description: 'Success' } },
    ShipmentIdentificationNumber: '1ZA1B2C30312345675',
    LabelResults: [
      {
        TrackingNumber: '1ZA1B2C30312345675',
        LabelImage: { LabelImageFormat: { Code: 'GIF' }, GraphicImage: 'R0lGODlhAQABAAAAACw=', HTMLImage: 'PGh0bWw+PC9odG1sPg==' },
      },
    ],
  },
};

const location = (city: string, postalCode: string) => ({ address: { city, stateProvince: 'GA', postalCode, country: 'US', countryCode: 'US' }, slic: '3059' });

/** Activities newest first, as UPS sends them. */
export const TRACK_ANSWER = {
  trackResponse: {
    shipment: [
      {
        inquiryNumber: '1ZA1B2C30312345675',
        package: [
          {
            trackingNumber: '1ZA1B2C30312345675',
            currentStatus: { type: 'D', code: 'FS', description: 'Delivered', statusCode: '011' },
            referenceNumber: [{ type: 'PACKAGE', number: SHIPMENT_ID }],
            activity: [
              { location: location('Alpharetta', '30005'), status: { type: 'D', description: 'DELIVERED ', code: 'FS', statusCode: '011' }, date: '20260714', time: '143000', gmtDate: '20260714', gmtOffset: '-04:00', gmtTime: '183000' },
              { location: location('Alpharetta', '30005'), status: { type: 'O', description: 'Out For Delivery Today', code: 'OT', statusCode: '021' }, date: '20260714', time: '074700', gmtDate: '20260714', gmtOffset: '-04:00', gmtTime: '114700' },
              { location: location('Atlanta', '30336'), status: { type: 'X', description: 'The receiver was not available for delivery.', code: 'RS', statusCode: '047' }, date: '20260713', time: '163000', gmtDate: '20260713', gmtOffset: '-04:00', gmtTime: '203000' },
              { location: { address: { city: 'Hodgkins', stateProvince: 'IL', countryCode: 'US' } }, status: { type: 'ZZ', description: 'A status type not in our table' }, date: '20260712', time: '090000', gmtDate: '20260712', gmtOffset: '-05:00', gmtTime: '140000' },
              { location: { address: { city: 'Baltimore', stateProvince: 'MD', postalCode: '21226', countryCode: 'US' } }, status: { type: 'I', description: 'Departed from Facility', code: 'DP', statusCode: '005' }, date: '20260712', time: '031500', gmtDate: '20260712', gmtOffset: '-04:00', gmtTime: '71500' },
              { location: { address: { city: 'Timonium', postalCode: '21093', countryCode: 'US' } }, status: { type: 'P', description: 'Pickup Scan ', code: 'PU', statusCode: '010' }, date: '20260711', time: '170000', gmtDate: '20260711', gmtOffset: '-04:00', gmtTime: '210000' },
              { location: { address: { countryCode: 'US' } }, status: { type: 'M', description: 'Shipper created a label, UPS has not received the package yet. ', code: 'MP', statusCode: '003' }, date: '20260711', time: '093000', gmtOffset: '-04:00' },
            ],
          },
        ],
      },
    ],
  },
};

export const UPS_ERROR = (code: string, message: string) => ({ response: { errors: [{ code, message }] } });
