import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_SCAN_SCHEDULE, isScanned, money, scansAt, trackingNumber, type SimPackage, type SimScanStep } from './state.js';

/**
 * A simulator of the UPS APIs we use, answering as UPS's documents say: the OAuth token endpoint,
 * Rating (Rate, Shop), Shipping (ship, void, label recovery) and Tracking (details, reference).
 * Same paths, field names and error bodies; tokens expire, 429s carry no `Retry-After`, packages
 * walk through their scans as the clock moves, and a void after a scan is refused.
 */

export type UpsSimOperation = 'token' | 'rate' | 'ship' | 'void' | 'recover' | 'track' | 'reference';

export type UpsSimFault = { operation: UpsSimOperation | 'any'; times?: number } & (
  | { kind: 'error'; status: number; code?: string; message?: string }
  /** Never answers; the connection is closed after `holdMs` (default 30 s) or when the client leaves. */
  | { kind: 'timeout'; holdMs?: number }
  | { kind: 'slow'; delayMs: number }
  /** Carries the operation out, then drops the connection before answering. */
  | { kind: 'lose_answer' }
);

export interface UpsSimulatorOptions {
  clientId?: string;
  clientSecret?: string;
  accountNumber?: string;
  /** Token lifetime in seconds (UPS's: 14399). */
  tokenTtlSeconds?: number;
  clock?: () => number;
  scanSchedule?: SimScanStep[];
  /** Mount point in front of UPS's own paths (default none: `/api/...` and `/security/...`). */
  basePath?: string;
  /** Checks what goes in and out; the messages it returns are recorded, and a bad request answers 400. */
  validate?: (direction: 'request' | 'response', operation: UpsSimOperation | 'error', body: unknown) => string[];
}

const UPS_ERROR = (code: string, message: string) => ({ response: { errors: [{ code, message }] } });
/** The error UPS sends for a token it does not accept. */
const INVALID_TOKEN = UPS_ERROR('250002', 'Invalid Authentication Information.');
/**
 * UPS documents no error for voiding a package it has scanned. This simulator refuses it as the
 * live service does a void past pickup: a 400 in UPS's error body, its words saying why.
 */
const VOID_AFTER_SCAN = UPS_ERROR('190117', 'The package has already been picked up and is in transit; it cannot be voided.');
const TINY_GIF = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

const US_SERVICES = ['03', '01', '02', '12', '13'];
const INTL_SERVICES = ['11', '65', '07', '08'];
/** Published prices in cents: a base per service plus a price per billed weight unit. */
const PRICES: Record<string, [number, number]> = {
  '03': [995, 80], '01': [5200, 350], '02': [2700, 200], '12': [1900, 150], '13': [4700, 310],
  '11': [1100, 90], '65': [4300, 300], '07': [5600, 380], '08': [3400, 220],
};
const CURRENCY: Record<string, string> = { US: 'USD', PR: 'USD', CA: 'CAD', GB: 'GBP' };

export type UpsSimulator = ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>) & {
  readonly packages: Map<string, SimPackage>;
  readonly faults: UpsSimFault[];
  /** What the validate hook found wrong, in order. */
  readonly violations: string[];
  /** Every handled request: operation and HTTP status answered. */
  readonly log: Array<{ operation: UpsSimOperation; status: number }>;
  tokensIssued(): number;
  /** Makes every issued token expire now (as if its lifetime had passed). */
  expireTokens(): void;
};

export function createUpsSimulator(options: UpsSimulatorOptions = {}): UpsSimulator {
  const clientId = options.clientId ?? 'sim-client-id';
  const clientSecret = options.clientSecret ?? 'sim-client-secret';
  const account = options.accountNumber ?? 'A1B2C3';
  const ttl = options.tokenTtlSeconds ?? 14_399;
  const clock = options.clock ?? Date.now;
  const schedule = options.scanSchedule ?? DEFAULT_SCAN_SCHEDULE;
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  const tokens = new Map<string, number>();
  const packages = new Map<string, SimPackage>();
  const faults: UpsSimFault[] = [];
  const violations: string[] = [];
  const log: Array<{ operation: UpsSimOperation; status: number }> = [];
  let issued = 0;
  let serial = 0;

  function route(method: string, path: string): { operation: UpsSimOperation; param?: string } | undefined {
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/security/v1/oauth/token') return { operation: 'token' };
    if (method === 'POST' && (m = /^\/api\/rating\/v2409\/(Rate|Shop)$/.exec(path))) return { operation: 'rate', param: m[1] };
    if (method === 'POST' && path === '/api/shipments/v2409/ship') return { operation: 'ship' };
    if (method === 'DELETE' && (m = /^\/api\/shipments\/v2409\/void\/cancel\/([^/]+)$/.exec(path))) return { operation: 'void', param: decodeURIComponent(m[1]) };
    if (method === 'POST' && path === '/api/labels/v1/recovery') return { operation: 'recover' };
    if (method === 'GET' && (m = /^\/api\/track\/v1\/details\/([^/]+)$/.exec(path))) return { operation: 'track', param: decodeURIComponent(m[1]) };
    if (method === 'GET' && (m = /^\/api\/track\/v1\/reference\/details\/([^/]+)$/.exec(path))) return { operation: 'reference', param: decodeURIComponent(m[1]) };
    return undefined;
  }

  function takeFault(operation: UpsSimOperation): UpsSimFault | undefined {
    const index = faults.findIndex((f) => f.operation === operation || f.operation === 'any');
    if (index < 0) return undefined;
    const fault = faults[index];
    const left = (fault.times ?? 1) - 1;
    if (left <= 0) faults.splice(index, 1);
    else faults[index] = { ...fault, times: left };
    return fault;
  }

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = new URL(req.url ?? '/', 'http://sim');
    if (base && !url.pathname.startsWith(`${base}/`)) return false;
    const found = route(req.method ?? 'GET', url.pathname.slice(base.length));
    if (!found) return false;
    const { operation } = found;
    const raw = await readBody(req);

    const send = (status: number, body: unknown) => {
      log.push({ operation, status });
      if (options.validate) {
        for (const v of options.validate('response', status < 300 ? operation : 'error', body)) violations.push(`${operation} answer ${status}: ${v}`);
      }
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };

    const fault = takeFault(operation);
    if (fault?.kind === 'error') {
      // UPS's 429 carries no Retry-After; no fault adds one.
      send(fault.status, UPS_ERROR(fault.code ?? String(fault.status), fault.message ?? 'Simulated failure'));
      return true;
    }
    if (fault?.kind === 'timeout') {
      const timer = setTimeout(() => res.destroy(), fault.holdMs ?? 30_000);
      res.on('close', () => clearTimeout(timer));
      return true;
    }
    if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs));

    const answer = (status: number, body: unknown) => {
      if (fault?.kind === 'lose_answer') {
        log.push({ operation, status });
        res.destroy();
      } else send(status, body);
    };

    if (operation === 'token') {
      const problems = options.validate?.('request', 'token', Object.fromEntries(new URLSearchParams(raw))) ?? [];
      for (const p of problems) violations.push(`token request: ${p}`);
      answer(...issueToken(req.headers.authorization, raw));
      return true;
    }
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiresAt = bearer === undefined ? undefined : tokens.get(bearer);
    if (expiresAt === undefined || expiresAt <= clock()) {
      send(401, INVALID_TOKEN);
      return true;
    }
    let body: unknown = undefined;
    if (raw !== '') {
      try {
        body = JSON.parse(raw);
      } catch {
        send(400, UPS_ERROR('9370701', 'Invalid JSON in the request body'));
        return true;
      }
    }
    if (options.validate && (operation === 'rate' || operation === 'ship' || operation === 'recover')) {
      const problems = options.validate('request', operation, body);
      if (problems.length) {
        for (const p of problems) violations.push(`${operation} request: ${p}`);
        send(400, UPS_ERROR('9370701', `Invalid request: ${problems[0]}`));
        return true;
      }
    }
    answer(...handle(operation, found.param, body, url));
    return true;
  };

  function issueToken(authorization: string | undefined, raw: string): [number, unknown] {
    const basic = /^Basic (\S+)$/.exec(authorization ?? '')?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString().split(':') : [];
    if (id !== clientId || secret !== clientSecret) return [401, UPS_ERROR('10401', 'ClientId is Invalid')];
    if (new URLSearchParams(raw).get('grant_type') !== 'client_credentials') return [400, UPS_ERROR('10400', 'Invalid/Missing grant_type')];
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, clock() + ttl * 1000);
    issued += 1;
    return [200, { token_type: 'Bearer', issued_at: String(clock()), client_id: clientId, access_token: token, scope: '', expires_in: String(ttl), refresh_count: '0', status: 'approved' }];
  }

  function handle(operation: UpsSimOperation, param: string | undefined, body: any, url: URL): [number, unknown] {
    switch (operation) {
      case 'rate':
        return rate(param as 'Rate' | 'Shop', body);
      case 'ship':
        return ship(body);
      case 'void':
        return voidShipment(param ?? '');
      case 'recover':
        return recover(body);
      case 'track':
        return track(param ?? '');
      case 'reference':
        return reference(param ?? '', url.searchParams.get('shipperNum'));
      default:
        return [404, UPS_ERROR('404', 'Not found')];
    }
  }

  /** The published (and, when asked, negotiated) price of a service for the request's package. */
  function price(serviceCode: string, shipment: any) {
    const pkg = shipment.Package[0];
    const unit = pkg.PackageWeight?.UnitOfMeasurement?.Code === 'KGS' ? 'KGS' : 'LBS';
    const billed = Math.max(1, Math.ceil(Number(pkg.PackageWeight?.Weight ?? '1')));
    const [baseCents, perUnit] = PRICES[serviceCode];
    const published = baseCents + perUnit * billed * (unit === 'KGS' ? 2 : 1);
    const negotiated = shipment.ShipmentRatingOptions?.NegotiatedRatesIndicator !== undefined ? Math.round(published * 0.9) : null;
    const currency = CURRENCY[shipment.Shipper.Address.CountryCode] ?? 'EUR';
    return { unit, billed, published, negotiated, currency } as const;
  }

  function offered(shipment: any): string[] {
    const from = shipment.Shipper.Address.CountryCode;
    return from === 'US' && shipment.ShipTo.Address.CountryCode === 'US' ? US_SERVICES : INTL_SERVICES;
  }

  const charges = (currency: string, cents: number) => ({ CurrencyCode: currency, MonetaryValue: money(cents) });

  function rate(option: 'Rate' | 'Shop', body: any): [number, unknown] {
    const shipment = body.RateRequest.Shipment;
    if (body.RateRequest.Request.RequestOption !== option) return [400, UPS_ERROR('9310100', 'RequestOption does not match the request path')];
    const services = option === 'Shop' ? offered(shipment) : [shipment.Service?.Code];
    if (option === 'Rate' && !offered(shipment).includes(services[0])) {
      return [400, UPS_ERROR('111210', 'The requested service is unavailable between the selected locations.')];
    }
    const days: Record<string, string> = { '01': '1', '02': '2', '12': '3', '13': '1', '07': '1', '65': '1', '08': '2' };
    const rated = services.map((code) => {
      const p = price(code, shipment);
      return {
        Service: { Code: code, Description: '' },
        BillingWeight: { UnitOfMeasurement: { Code: p.unit, Description: p.unit === 'LBS' ? 'Pounds' : 'Kilograms' }, Weight: `${p.billed}.0` },
        TransportationCharges: charges(p.currency, p.published),
        ServiceOptionsCharges: charges(p.currency, 0),
        TotalCharges: charges(p.currency, p.published),
        ...(p.negotiated === null ? {} : { NegotiatedRateCharges: { TotalCharge: charges(p.currency, p.negotiated) } }),
        ...(days[code] ? { GuaranteedDelivery: { BusinessDaysInTransit: days[code] } } : {}),
        RatedPackage: [{ TransportationCharges: charges(p.currency, p.published), Weight: shipment.Package[0].PackageWeight?.Weight ?? '1' }],
      };
    });
    return [200, { RateResponse: { Response: { ResponseStatus: { Code: '1', Description: 'Success' } }, RatedShipment: rated } }];
  }

  function ship(body: any): [number, unknown] {
    const request = body.ShipmentRequest;
    const shipment = request.Shipment;
    const service = shipment.Service.Code;
    if (!offered(shipment).includes(service)) return [400, UPS_ERROR('111210', 'The requested service is unavailable between the selected locations.')];
    if (shipment.Shipper.ShipperNumber !== account) return [400, UPS_ERROR('120100', 'Missing or invalid shipper number')];
    const p = price(service, shipment);
    serial += 1;
    const number = trackingNumber(account, service, serial);
    const references = [...(shipment.ReferenceNumber ?? []), ...(shipment.Package[0].ReferenceNumber ?? [])].map((r: { Value: string }) => r.Value);
    packages.set(number, {
      trackingNumber: number,
      references,
      serviceCode: service,
      createdAt: clock(),
      voidedAt: null,
      originCountry: shipment.Shipper.Address.CountryCode,
      total: { currency: p.currency, published: money(p.published), negotiated: p.negotiated === null ? null : money(p.negotiated) },
      billingWeight: { unit: p.unit, value: `${p.billed}.0` },
    });
    const format = request.LabelSpecification.LabelImageFormat.Code as 'GIF' | 'ZPL';
    return [
      200,
      {
        ShipmentResponse: {
          Response: { ResponseStatus: { Code: '1', Description: 'Success' } },
          ShipmentResults: {
            ShipmentCharges: {
              TransportationCharges: charges(p.currency, p.published),
              ServiceOptionsCharges: charges(p.currency, 0),
              TotalCharges: charges(p.currency, p.published),
            },
            ...(p.negotiated === null ? {} : { NegotiatedRateCharges: { TotalCharge: charges(p.currency, p.negotiated) } }),
            // The document gives the billing weight as exactly 8 characters.
            BillingWeight: { UnitOfMeasurement: { Code: p.unit, Description: p.unit === 'LBS' ? 'Pounds' : 'Kilograms' }, Weight: `${p.billed}.0`.padStart(8, ' ') },
            ShipmentIdentificationNumber: number,
            PackageResults: [{ TrackingNumber: number, ServiceOptionsCharges: charges(p.currency, 0), ShippingLabel: label(number, format) }],
          },
        },
      },
    ];
  }

  function label(number: string, format: 'GIF' | 'ZPL') {
    if (format === 'GIF') return { ImageFormat: { Code: 'GIF', Description: 'GIF' }, GraphicImage: TINY_GIF, HTMLImage: Buffer.from(`<html><img src="label${number}.gif"></html>`).toString('base64') };
    const zpl = `^XA^CF0,40^FO50,50^FDUPS ${number}^FS^BY3^FO50,120^BCN,120,Y,N,N^FD${number}^FS^XZ`;
    return { ImageFormat: { Code: 'ZPL', Description: 'ZPL' }, GraphicImage: Buffer.from(zpl).toString('base64') };
  }

  function voidShipment(id: string): [number, unknown] {
    const pkg = packages.get(id);
    if (!pkg) return [400, UPS_ERROR('190102', 'No shipment found within the allowed void period')];
    const now = clock();
    if (pkg.voidedAt === null) {
      if (isScanned(pkg, schedule, now)) return [400, VOID_AFTER_SCAN];
      pkg.voidedAt = now;
    }
    // "1 = Voided or Already Voided".
    return [
      200,
      {
        VoidShipmentResponse: {
          Response: { ResponseStatus: { Code: '1', Description: 'Success' } },
          SummaryResult: { Status: { Code: '1', Description: 'Voided' } },
          PackageLevelResults: [{ TrackingNumber: pkg.trackingNumber, Status: { Code: '1', Description: 'Voided' } }],
        },
      },
    ];
  }

  function recover(body: any): [number, unknown] {
    const request = body.LabelRecoveryRequest;
    const pkg = packages.get(request.TrackingNumber);
    if (!pkg || pkg.voidedAt !== null) return [400, UPS_ERROR('120535', 'No label found for the tracking number')];
    const image = label(pkg.trackingNumber, request.LabelSpecification.LabelImageFormat.Code);
    return [
      200,
      {
        LabelRecoveryResponse: {
          Response: { ResponseStatus: { Code: '1', Description: 'Success' } },
          ShipmentIdentificationNumber: pkg.trackingNumber,
          LabelResults: [{ TrackingNumber: pkg.trackingNumber, LabelImage: { LabelImageFormat: { Code: image.ImageFormat.Code }, GraphicImage: image.GraphicImage } }],
        },
      },
    ];
  }

  function packageView(pkg: SimPackage) {
    const at = (ms: number) => new Date(ms).toISOString();
    const activity = scansAt(pkg, schedule, clock())
      .reverse() // newest first, as UPS sends them
      .map((e) => {
        const iso = at(e.at);
        const date = iso.slice(0, 10).replace(/-/g, '');
        const time = iso.slice(11, 19).replace(/:/g, '');
        return {
          location: { address: { city: e.city, postalCode: e.postalCode, country: pkg.originCountry, countryCode: pkg.originCountry } },
          status: { type: e.type, description: e.description, code: e.code, statusCode: '000' },
          date,
          time,
          gmtDate: date,
          gmtOffset: '+00:00',
          gmtTime: time,
        };
      });
    return {
      trackingNumber: pkg.trackingNumber,
      currentStatus: activity[0]?.status,
      referenceNumber: pkg.references.map((number) => ({ type: 'PACKAGE', number })),
      activity,
      packageCount: 1,
    };
  }

  const NOT_FOUND = UPS_ERROR('TW0001', 'Tracking Information Not Found');

  function track(number: string): [number, unknown] {
    const pkg = packages.get(number);
    if (!pkg) return [404, NOT_FOUND];
    return [200, { trackResponse: { shipment: [{ inquiryNumber: number, package: [packageView(pkg)] }] } }];
  }

  function reference(value: string, shipperNum: string | null): [number, unknown] {
    if (shipperNum !== null && shipperNum !== account) return [404, NOT_FOUND];
    const matches = [...packages.values()].filter((p) => p.references.includes(value));
    if (!matches.length) return [404, NOT_FOUND];
    return [200, { trackResponse: { shipment: [{ inquiryNumber: value, package: matches.map(packageView) }] } }];
  }

  return Object.assign(handler, {
    packages,
    faults,
    violations,
    log,
    tokensIssued: () => issued,
    expireTokens: () => {
      for (const token of tokens.keys()) tokens.set(token, clock());
    },
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Serves the simulator on its own port (tests). `url` is the origin to give the client. */
export async function startUpsSimulator(options: UpsSimulatorOptions & { port?: number; host?: string } = {}) {
  const sim = createUpsSimulator(options);
  const server = createServer((req, res) => {
    sim(req, res).then(
      (handled) => {
        if (!handled) res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(UPS_ERROR('404', 'Not found')));
      },
      () => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(UPS_ERROR('500', 'Internal error')));
      },
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    sim,
    url: `http://${host}:${port}${options.basePath ?? ''}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
