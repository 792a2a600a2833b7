import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Typed search attributes on every shipment workflow, for operators (set by the API and the workflow). */
export const SA = {
  AccountId: defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD),
  ShipmentStatus: defineSearchAttributeKey('ShipmentStatus', SearchAttributeType.KEYWORD),
  Carrier: defineSearchAttributeKey('Carrier', SearchAttributeType.KEYWORD),
  Reference: defineSearchAttributeKey('Reference', SearchAttributeType.KEYWORD),
  TrackingNumber: defineSearchAttributeKey('TrackingNumber', SearchAttributeType.KEYWORD),
  Livemode: defineSearchAttributeKey('Livemode', SearchAttributeType.BOOL),
};

/** The same attributes as the Temporal CLI registers them (`--search-attribute Name=Type`). */
export const SEARCH_ATTRIBUTES: Record<string, 'Keyword' | 'Bool'> = Object.fromEntries(
  Object.values(SA).map((key) => [key.name, key.type === SearchAttributeType.BOOL ? 'Bool' : 'Keyword']),
);
