import type { ShipmentRow } from '../../db/index.js';
import { ApiError, CODE, type Address, type Customs, type Parcel } from '../../domain/index.js';
import type { PurchaseOrder } from './purchase.js';

/** The statuses whose parcel can come back (contract: Return labels). */
const RETURNABLE = new Set(['purchased', 'in_transit', 'delivered']);

/**
 * The return label's order for a shipment (`POST /shipments/{shipment}/return`): the same service
 * unless another is named, the addresses swapped, the same parcel, and across a border the same
 * customs declared as returned goods. The original's options are not carried over: a signature or a
 * declared value is the sender's choice for the way out, and the return asks for none.
 *
 * A shipment that was never bought or whose label is gone (pending, failed, voiding, voided) has no
 * parcel to return, and one the carrier reported a problem with (exception) is not yet settled: both
 * are refused with 409 `label_not_available`, the conflict of asking for what a shipment in that
 * state does not have.
 */
export function returnOrder(original: ShipmentRow, service: string | undefined): PurchaseOrder {
  if (!RETURNABLE.has(original.status)) {
    throw new ApiError(
      CODE.label_not_available,
      `Shipment ${original.id} is ${original.status}: only a purchased, in-transit or delivered shipment has a return label.`,
      { fields: { shipment_id: original.id } },
    );
  }
  const customs = original.customs as Customs | null;
  return {
    service: service ?? original.serviceCode,
    parcel: original.parcel as Parcel,
    // The original's reference ties the return to the order it came from.
    ...(original.reference ? { reference: original.reference } : {}),
    terms: {
      from: original.toAddress as Address,
      to: original.fromAddress as Address,
      ...(customs ? { customs: { ...customs, contents_type: 'returned_goods' as const, contents_explanation: null } } : {}),
      isReturn: true,
    },
    returnOf: original.id,
  };
}
