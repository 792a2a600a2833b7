import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * The UPS simulator's shipments abroad, returns and options, as Shipping.yaml and Rating.yaml
 * define them: the conditions their descriptions state (phones and attention names abroad, the
 * invoice's required values), surcharges priced deterministically, and the invoice UPS draws.
 */

/** Surcharges in the route's minor units: residential delivery, signatures, Saturday, declared value per started 100. */
const SURCHARGE = { residential: 450, signature: 550, adult: 700, saturday: 1_600, declaredPer100: 120 } as const;
/** Services that deliver on Saturday when asked: the air and express ones. */
const SATURDAY_SERVICES = new Set(['01', '02', '13', '07', '65']);

/** The options' and the residential surcharge of a Rating or Shipping shipment for one service. */
export function optionCharges(shipment: any): number {
  let cents = 0;
  if (shipment.ShipTo?.Address?.ResidentialAddressIndicator !== undefined) cents += SURCHARGE.residential;
  const options = shipment.Package?.[0]?.PackageServiceOptions ?? {};
  const dcis = options.DeliveryConfirmation?.DCISType;
  if (dcis === '2') cents += SURCHARGE.signature;
  if (dcis === '3') cents += SURCHARGE.adult;
  if (options.DeclaredValue) cents += Math.ceil(Number(options.DeclaredValue.MonetaryValue) / 100) * SURCHARGE.declaredPer100;
  if (shipment.ShipmentServiceOptions?.SaturdayDeliveryIndicator !== undefined) cents += SURCHARGE.saturday;
  return cents;
}

/** Why UPS would refuse these options on this service, or null. */
export function optionRefusal(service: string, shipment: any): string | null {
  if (shipment.ShipmentServiceOptions?.SaturdayDeliveryIndicator !== undefined && !SATURDAY_SERVICES.has(service)) return 'Saturday delivery is not available for the requested service.';
  const returning = shipment.ReturnService !== undefined || shipment.ShipmentServiceOptions?.ReturnService !== undefined;
  if (returning && shipment.Package?.[0]?.PackageServiceOptions?.DeliveryConfirmation) return 'Delivery confirmation is valid for forward shipments only.';
  return null;
}

const blank = (v: unknown) => typeof v !== 'string' || v.trim() === '';

/** Why UPS would refuse this ship request abroad or as a return (the descriptions' conditions), or null. */
export function shipRefusal(shipment: any): string | null {
  const returning = shipment.ReturnService !== undefined;
  if (returning && shipment.ReturnService.Code !== '9') return 'This account offers the UPS Print Return Label return service only.';
  if (returning && !shipment.ShipFrom) return 'ShipFrom is required for a return shipment.';
  const origin = (shipment.ShipFrom ?? shipment.Shipper).Address.CountryCode;
  if (origin === shipment.ShipTo.Address.CountryCode) {
    return shipment.ShipmentServiceOptions?.InternationalForms ? 'International forms are not valid on a domestic shipment.' : null;
  }
  const sender = returning ? shipment.ShipFrom : shipment.Shipper;
  if (blank(sender.Phone?.Number)) return 'A shipper phone number is required if destination is international.';
  if (blank(shipment.ShipTo.Phone?.Number)) return 'A ShipTo phone number is required when ShipTo and ShipFrom countries differ.';
  if (blank(sender.AttentionName) || blank(shipment.ShipTo.AttentionName)) return 'An attention name is required if destination is international.';
  if (blank(shipment.Description)) return 'The Description of Goods is required for international shipments.';
  const forms = shipment.ShipmentServiceOptions?.InternationalForms;
  if (!forms) return 'A commercial invoice (InternationalForms) is required for this international shipment.';
  const formType = forms.FormType?.[0];
  if (returning ? formType !== '05' && formType !== '10' : formType !== '01') return 'For shipment with return service, 05 or 10 are the only valid form types; 01 otherwise.';
  if (blank(forms.InvoiceNumber)) return 'InvoiceNumber is required for Invoice forms.';
  if (!returning && blank(forms.InvoiceDate)) return 'InvoiceDate is required for Invoice forms for forward shipments.';
  if (blank(forms.ReasonForExport)) return 'ReasonForExport is required for Invoice forms.';
  if (!forms.Contacts?.SoldTo) return 'SoldTo is required for Invoice forms.';
  for (const product of forms.Product) {
    if (!product.Unit) return 'Product Unit is required for Invoice forms.';
    if (!(Number(product.Unit.Value) > 0)) return 'Product Unit Value should be greater than zero.';
    if (blank(product.PartNumber)) return 'Product PartNumber is required for Invoice forms.';
  }
  const dutiesBilled = shipment.PaymentInformation.ShipmentCharge.some((c: { Type: string }) => c.Type === '02');
  if (dutiesBilled && forms.TermsOfShipment !== 'DDP') return 'Duties and taxes billed to the shipper need TermsOfShipment DDP.';
  return null;
}

/** The commercial invoice UPS returns as the `Form` image: one PDF page of the request's invoice. */
export async function invoicePdf(shipment: any, trackingNumber: string): Promise<string> {
  const forms = shipment.ShipmentServiceOptions.InternationalForms;
  const doc = await PDFDocument.create({ updateMetadata: false });
  const page = doc.addPage([612, 792]);
  const font = await doc.embedFont(StandardFonts.Courier);
  const bold = await doc.embedFont(StandardFonts.CourierBold);
  let y = 750;
  const line = (text: string, size = 10, f = font) => {
    page.drawText(text.replace(/[^\x20-\x7e]/g, '?'), { x: 40, y, size, font: f });
    y -= size + 4;
  };
  line(forms.FormType[0] === '05' ? 'PARTIAL INVOICE' : 'COMMERCIAL INVOICE', 14, bold);
  line(`Invoice: ${forms.InvoiceNumber}   Date: ${forms.InvoiceDate ?? ''}   Waybill: ${trackingNumber}`);
  line(`Reason for export: ${forms.ReasonForExport}   Terms: ${forms.TermsOfShipment ?? ''}   Currency: ${forms.CurrencyCode}`);
  const sold = forms.Contacts.SoldTo;
  line(`Sold to: ${sold.Name} (${sold.AttentionName}) ${sold.Address.City} ${sold.Address.CountryCode}`);
  y -= 6;
  let total = 0;
  for (const product of forms.Product) {
    const value = Number(product.Unit.Number) * Number(product.Unit.Value);
    total += value;
    line(`${product.PartNumber}  ${product.Description.join(' ')}  ${product.Unit.Number} ${product.Unit.UnitOfMeasurement.Code} x ${product.Unit.Value} = ${value.toFixed(2)}  ${product.OriginCountryCode ?? ''}`, 9);
  }
  line(`Total: ${total.toFixed(2)} ${forms.CurrencyCode}`, 11, bold);
  return Buffer.from(await doc.save({ useObjectStreams: false })).toString('base64');
}
