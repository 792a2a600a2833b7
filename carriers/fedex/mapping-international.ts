import { parseAmount, type Address, type ContentsType, type Customs, type TaxId } from '../../domain/index.js';
import type { AddressProblem } from '../types.js';
import { FEDEX_LIMITS } from './limits.js';
import { fedexAmount } from './mapping-options.js';

/**
 * Our contents types as FedEx's `shipmentPurpose` (Ship: GIFT, NOT_SOLD, PERSONAL_EFFECTS,
 * REPAIR_AND_RETURN, SAMPLE, SOLD): goods sold, gifts and samples as themselves; documents and
 * anything else are not sold; goods sent back are FedEx's repair-and-return purpose.
 */
const PURPOSE = {
  merchandise: 'SOLD',
  gift: 'GIFT',
  sample: 'SAMPLE',
  documents: 'NOT_SOLD',
  returned_goods: 'REPAIR_AND_RETURN',
  other: 'NOT_SOLD',
} as const satisfies Record<ContentsType, string>;

/** `termsOfSale` ("Max length is 3"): DDU is DAP since Incoterms 2010 (the recipient pays duties), DDP is DDP. */
const TERMS = { DDU: 'DAP', DDP: 'DDP' } as const;

/**
 * Tax ids as FedEx's `tins` of a party: an EORI or IOSS is a union-wide business number, a VAT
 * number a national one, an EIN the US federal one; any other a national business number.
 */
const TIN_TYPE = { eori: 'BUSINESS_UNION', ioss: 'BUSINESS_UNION', vat: 'BUSINESS_NATIONAL', ein: 'FEDERAL', other: 'BUSINESS_NATIONAL' } as const satisfies Record<TaxId['type'], string>;

/** The `tins` of one party, or nothing. */
export function fedexTins(taxIds: readonly TaxId[] | undefined, owner: TaxId['owner']) {
  const ids = (taxIds ?? []).filter((id) => id.owner === owner);
  return ids.length ? { tins: ids.map((id) => ({ number: id.number, tinType: TIN_TYPE[id.type] })) } : {};
}

/** Countries whose exports carry the export compliance statement (`exportDetail`: "used for US or CA exports"). */
const EXPORT_DETAIL_COUNTRIES = new Set(['US', 'CA']);

/**
 * `customsClearanceDetail` of a shipment abroad. The commercial invoice's number is the
 * declaration's, or our shipment id (FedEx prints an INVOICE_NUMBER reference on its invoice);
 * the signer is the invoice's originator; duties are billed to the sender under DDP, to the
 * recipient otherwise. Each line's value is its total, its unit price that over its quantity.
 */
export function fedexCustomsClearance(p: { reference: string; from: Address; customs: Customs }) {
  const { customs } = p;
  const currency = customs.currency.toUpperCase();
  const money = (minor: number) => ({ amount: fedexAmount(minor), currency });
  const total = customs.items.reduce((sum, item) => sum + (parseAmount(item.value) ?? 0), 0);
  const eel = customs.eel_pfc?.trim();
  return {
    dutiesPayment: { paymentType: customs.incoterm === 'DDP' ? ('SENDER' as const) : ('RECIPIENT' as const) },
    ...(customs.contents_type === 'documents' ? { isDocumentOnly: true } : {}),
    commercialInvoice: {
      originatorName: customs.signer,
      customerReferences: [{ customerReferenceType: 'INVOICE_NUMBER' as const, value: customs.invoice_number ?? p.reference }],
      termsOfSale: TERMS[customs.incoterm],
      shipmentPurpose: PURPOSE[customs.contents_type],
    },
    commodities: customs.items.map((item) => {
      const line = parseAmount(item.value) ?? 0;
      return {
        description: item.description,
        countryOfManufacture: item.origin_country.toUpperCase(),
        quantity: item.quantity,
        quantityUnits: 'PCS',
        // FedEx's amounts are numbers: the unit price to six places, so quantity times it is the line.
        unitPrice: { amount: Math.round((line * 10_000) / item.quantity) / 1_000_000, currency },
        customsValue: money(line),
        weight: { units: 'KG' as const, value: item.weight_g / 1000 },
        ...(item.hs_tariff_number ? { harmonizedCode: item.hs_tariff_number } : {}),
        ...(item.sku ? { partNumber: item.sku } : {}),
      };
    }),
    totalCustomsValue: money(total),
    ...(eel && EXPORT_DETAIL_COUNTRIES.has(p.from.country.toUpperCase()) ? { exportDetail: { exportComplianceStatement: eel } } : {}),
  };
}

/** The commercial invoice asked for as a shipping document: FedEx's PDF on letter paper, served as our invoice. */
export const FEDEX_INVOICE_DOCUMENT = {
  shippingDocumentTypes: ['COMMERCIAL_INVOICE' as const],
  commercialInvoiceDetail: { documentFormat: { stockType: 'PAPER_LETTER' as const, docType: 'PDF' as const } },
};

/** What of a declaration FedEx cannot take as it is (never cut to fit). */
export function fedexCustomsProblems(customs: Customs): AddressProblem[] {
  const problems: AddressProblem[] = [];
  if ((customs.invoice_number?.length ?? 0) > FEDEX_LIMITS.invoiceNumber) {
    problems.push({ path: 'customs.invoice_number', message: `must be at most ${FEDEX_LIMITS.invoiceNumber} characters for FedEx` });
  }
  customs.items.forEach((item, i) => {
    // "Maximum limit is 5 digits before decimal" of a unit price.
    if ((parseAmount(item.value) ?? 0) / item.quantity > FEDEX_LIMITS.maxDeclaredMinor) {
      problems.push({ path: `customs.items[${i}].value`, message: 'its unit value must be at most 99999.99 for FedEx' });
    }
  });
  return problems;
}
