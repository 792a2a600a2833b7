import { crossesBorder, parseAmount, type Address, type Customs, type ContentsType, type TaxId } from '../../domain/index.js';
import type { ShipmentTerms } from '../types.js';
import { addressState, upsAddressLines, upsPostalCode, type UpsProblem } from './mapping-address.js';
import { UPS_LIMITS } from './limits.js';
import type { Shipments } from './schemas/index.js';

/** What a UPS purchase carries beyond its route and parcel (ShipmentTerms, with when it was asked). */
export interface UpsTerms extends ShipmentTerms {
  /** The purchase's instant (ISO 8601): the invoice's date. */
  at?: string;
  /** The account's currency, which a declared value is in. */
  currency?: string;
}

/**
 * The phone as UPS takes it: "Valid values are 0 - 9", so the `+ ( ) -` and spaces our addresses
 * allow are removed (a rewrite, never a cut); undefined when there is none.
 */
export function upsPhone(phone: string | undefined): { Number: string } | undefined {
  const digits = phone?.replace(/\D/g, '') ?? '';
  return digits === '' ? undefined : { Number: digits };
}

/**
 * A party of the shipment: UPS's `Name` is the company where there is one, and `AttentionName` the
 * person. Abroad UPS requires the attention name (Shipper and ShipTo "required if destination is
 * international"): it is derived from our `name`.
 */
export function upsParty(address: Address, abroad: boolean) {
  const company = address.company?.trim();
  const phone = upsPhone(address.phone);
  const email = address.email?.trim();
  return {
    Name: company || address.name,
    ...(company || abroad ? { AttentionName: address.name } : {}),
    ...(phone ? { Phone: phone } : {}),
    ...(email ? { EMailAddress: email } : {}),
  };
}

/**
 * Whether UPS should treat the recipient as residential. Our addresses carry no residential flag;
 * an address without a company is a person's, as UPS's own and other carriers' APIs assume, so its
 * residential surcharge is quoted rather than billed later as an adjustment.
 */
export function upsResidential(address: Address): boolean {
  return !address.company?.trim();
}

/** Our contents types as UPS's `ReasonForExport` ("SALE, GIFT, SAMPLE, RETURN, REPAIR, INTERCOMPANYDATA, any other reason"). */
const REASON: Record<Exclude<ContentsType, 'other'>, string> = {
  merchandise: 'SALE',
  gift: 'GIFT',
  sample: 'SAMPLE',
  returned_goods: 'RETURN',
  documents: 'DOCUMENTS',
};

function reasonForExport(customs: Customs): string {
  return customs.contents_type === 'other' ? (customs.contents_explanation ?? 'OTHER') : REASON[customs.contents_type];
}

/**
 * `TermsOfShipment`: UPS lists no DDU (Incoterms 2010 replaced it with DAP, the same terms: the
 * recipient pays duties); DDP is DDP.
 */
const TERMS = { DDU: 'DAP', DDP: 'DDP' } as const;

/** An item's unit value (the line's total over its quantity), to UPS's six decimals. */
export function unitValue(lineValue: string, quantity: number): string {
  const minor = parseAmount(lineValue) ?? 0;
  const micro = Math.round((minor * 10_000) / quantity);
  const whole = Math.floor(micro / 1_000_000);
  const fraction = String(micro % 1_000_000).padStart(6, '0').replace(/0{1,4}$/, '');
  return `${whole}.${fraction.length < 2 ? fraction.padEnd(2, '0') : fraction}`;
}

/** `Shipment.Description`, required abroad: the lines' descriptions, or the first one's when they do not fit. */
export function upsGoodsDescription(customs: Customs): string {
  const all = [...new Set(customs.items.map((i) => i.description))].join(', ');
  return all.length <= UPS_LIMITS.description ? all : customs.items[0]!.description;
}

/** `yyyyMMdd` of an instant (UTC, the day the label is made). */
function invoiceDate(at: string | undefined): string {
  return (at ? new Date(at) : new Date()).toISOString().slice(0, 10).replace(/-/g, '');
}

/**
 * The commercial invoice UPS draws (FormType 01; 05, the partial invoice, is the only invoice a
 * return may carry, and UPS ignores its date). The document requires, in descriptions only: its
 * number (the shipment id when the declaration has none), date, reason for export, the sold-to
 * party (the recipient) and each product's unit and part number (the SKU, else the line number).
 */
export function upsInternationalForms(p: { reference: string; to: Address; customs: Customs; isReturn: boolean; at?: string }): Shipments.ShipmentServiceOptions_InternationalForms {
  const { customs, to } = p;
  const state = addressState(to);
  const postcode = upsPostalCode(to);
  const phone = upsPhone(to.phone);
  const email = to.email?.trim();
  return {
    FormType: [p.isReturn ? '05' : '01'],
    Contacts: {
      SoldTo: {
        Name: to.company?.trim() || to.name,
        AttentionName: to.name,
        ...(phone ? { Phone: phone } : {}),
        Address: {
          AddressLine: upsAddressLines(to),
          City: to.city,
          ...(state ? { StateProvinceCode: state.toUpperCase() } : {}),
          ...(postcode ? { PostalCode: postcode } : {}),
          CountryCode: to.country.toUpperCase(),
        },
        ...(email ? { EMailAddress: email } : {}),
      },
    },
    Product: customs.items.map((item, i) => ({
      Description: [item.description],
      Unit: { Number: String(item.quantity), Value: unitValue(item.value, item.quantity), UnitOfMeasurement: { Code: 'PCS' } },
      ...(item.hs_tariff_number ? { CommodityCode: item.hs_tariff_number } : {}),
      PartNumber: item.sku ?? String(i + 1),
      OriginCountryCode: item.origin_country,
    })),
    InvoiceNumber: customs.invoice_number ?? p.reference,
    ...(p.isReturn ? {} : { InvoiceDate: invoiceDate(p.at) }),
    TermsOfShipment: TERMS[customs.incoterm],
    ReasonForExport: reasonForExport(customs),
    CurrencyCode: customs.currency,
  };
}

/**
 * Tax ids by owner (`GlobalTaxInformation`; the parties' own `TaxIdentificationNumber` is
 * deprecated): AgentRole 20 is the ship-from party, 30 the consignee, which takes only type codes
 * 1002, 1005 or 0005. An EORI is purpose 02 (type 0002 for the sender), every other id purpose 01.
 */
export function upsTaxInformation(taxIds: readonly TaxId[] | undefined): Shipments.Shipment_GlobalTaxInformation | undefined {
  if (!taxIds?.length) return undefined;
  const line = (id: TaxId) => {
    const sender = id.owner === 'sender';
    const eori = id.type === 'eori';
    const type = sender ? (eori ? '0002' : id.type === 'vat' || id.type === 'ein' ? '1002' : '1001') : '1002';
    return {
      IdentificationNumber: id.number,
      IDNumberCustomerRole: sender ? '37' : '18',
      IDNumberEncryptionIndicator: '0' as const,
      IDNumberPurposeCode: eori ? '02' : '01',
      IDNumberTypeCode: type,
      IncludeIDNumberOnShippingBrokerageDocs: '01',
    };
  };
  const agents = (['sender', 'recipient'] as const)
    .map((owner) => ({ owner, ids: taxIds.filter((id) => id.owner === owner) }))
    .filter((a) => a.ids.length)
    .map((a) => ({ AgentRole: a.owner === 'sender' ? ('20' as const) : ('30' as const), TaxIdentificationNumber: a.ids.map(line) }));
  return { AgentTaxIdentificationNumber: agents };
}

const chars = (limit: number) => `must be at most ${limit} characters for UPS`;

/**
 * What a purchase needs at UPS beyond what a quote does (contract: a quote needs none of them):
 * phones abroad, and every value the documents limit, refused rather than cut.
 */
export function upsPurchaseProblems(p: { from: Address; to: Address } & UpsTerms): UpsProblem[] {
  const problems: UpsProblem[] = [];
  const abroad = crossesBorder(p.from, p.to);
  for (const [path, address] of [['from', p.from], ['to', p.to]] as const) {
    const digits = address.phone?.replace(/\D/g, '') ?? '';
    if (abroad && digits === '') problems.push({ path: `${path}.phone`, message: 'is required by UPS on international shipments' });
    if (digits.length > UPS_LIMITS.phone) problems.push({ path: `${path}.phone`, message: `must have at most ${UPS_LIMITS.phone} digits for UPS` });
    if ((address.company?.trim().length ?? 0) > UPS_LIMITS.name) problems.push({ path: `${path}.company`, message: chars(UPS_LIMITS.name) });
    if ((address.email?.trim().length ?? 0) > UPS_LIMITS.email) problems.push({ path: `${path}.email`, message: chars(UPS_LIMITS.email) });
  }
  const declared = p.options?.declared_value;
  if (declared !== undefined && (parseAmount(declared) ?? 0) > 9_999_999) {
    problems.push({ path: 'options.declared_value', message: 'must be at most 99999.99 for UPS (Rating takes 8 characters)' });
  }
  if (p.isReturn && p.options?.signature) problems.push({ path: 'options.signature', message: 'UPS confirms delivery with a signature on forward shipments only' });
  const customs = p.customs;
  if (!customs) return problems;
  if ((customs.invoice_number?.length ?? 0) > UPS_LIMITS.invoiceNumber) problems.push({ path: 'customs.invoice_number', message: chars(UPS_LIMITS.invoiceNumber) });
  if (customs.contents_type === 'other' && (customs.contents_explanation?.length ?? 0) > UPS_LIMITS.reasonForExport) {
    problems.push({ path: 'customs.contents_explanation', message: `must be at most ${UPS_LIMITS.reasonForExport} characters for UPS (its reason for export)` });
  }
  for (const owner of ['sender', 'recipient'] as const) {
    if ((customs.tax_ids ?? []).filter((id) => id.owner === owner).length > 8) problems.push({ path: 'customs.tax_ids', message: `UPS takes at most 8 tax ids of the ${owner}` });
  }
  customs.items.forEach((item, i) => {
    if (String(item.quantity).length > 7) problems.push({ path: `customs.items[${i}].quantity`, message: 'must have at most 7 digits for UPS' });
    if ((item.sku?.length ?? 0) > UPS_LIMITS.partNumber) problems.push({ path: `customs.items[${i}].sku`, message: chars(UPS_LIMITS.partNumber) });
  });
  return problems;
}
