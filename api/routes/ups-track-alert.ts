import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { TrackAlertEvent, trackAlertScan } from '../../carriers/index.js';
import { findShipmentByTracking } from '../../db/index.js';
import { ApiError, CODE } from '../../domain/index.js';
import type { AppContext } from '../context.js';
import { carrierPushSecret, issuePushToken, pushTokenValid, sameSecret } from '../carrier-push.js';
import { pushScans } from './tracking.js';

const CARRIER = 'ups';
/** The client id UPS is given with the push secret for our token endpoint (and sends back as `x-api-key`). */
export const UPS_PUSH_CLIENT_ID = CARRIER;

/**
 * UPS Track Alert pushes (UPS's `UPSTrackAlert.yaml`, webhook `TrackingEvent`),
 * checked like every carrier push: with the carrier's push secret, in constant time, before the
 * body is read. Track Alert signs with OAuth client credentials (`clientOauth2`): UPS takes a
 * bearer token from our token endpoint with the client id `ups` and CARRIER_UPS_WEBHOOK_SECRET, and
 * sends it with each event, with the client id as `x-api-key`. Registered with UPS ("Manage
 * Webhook Credentials"): docs/operators-guide.md#ups-track-alert.
 */
export const upsTrackAlertRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const secret = () => carrierPushSecret(ctx.config, ctx.catalog, CARRIER);
    const refusal = () => new ApiError(CODE.unauthorized, 'A valid carrier credential is required.', { headers: { 'www-authenticate': 'Bearer' } });

    /** `Authorization: Basic base64(ups:<secret>)`, as an OAuth client with `client_secret_basic` sends it. */
    const clientMatches = (request: FastifyRequest) => {
      const wanted = secret();
      const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(request.headers.authorization ?? '')?.[1];
      const given = basic ? Buffer.from(basic, 'base64').toString('utf8') : '';
      return wanted !== undefined && sameSecret(given, `${UPS_PUSH_CLIENT_ID}:${wanted}`);
    };
    /** A token from the endpoint below, not expired, and the client id where UPS sends it. */
    const bearerMatches = (request: FastifyRequest) => {
      const wanted = secret();
      const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      const apiKey = request.headers['x-api-key'];
      const clientOk = apiKey === undefined || (typeof apiKey === 'string' && sameSecret(apiKey, UPS_PUSH_CLIENT_ID));
      return wanted !== undefined && pushTokenValid(wanted, CARRIER, token, ctx.now().getTime()) && clientOk;
    };

    // The token request is a form, as OAuth has it; only here does this API read one.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => done(null, body));

    app.post(
      '/carrier-webhooks/ups/oauth/token',
      {
        config: { credential: clientMatches },
        schema: { hide: true },
        onRequest: async (request) => {
          if (!clientMatches(request)) throw refusal();
        },
      },
      async (request, reply) => {
        if (typeof request.body !== 'string') throw new ApiError(CODE.unsupported_media_type, 'Send the token request as application/x-www-form-urlencoded.');
        if (new URLSearchParams(request.body).get('grant_type') !== 'client_credentials') {
          throw new ApiError(CODE.validation_failed, 'Only the client_credentials grant is offered.', { errors: [{ path: 'grant_type', message: 'must be client_credentials' }] });
        }
        const { token, expiresIn } = issuePushToken(secret()!, CARRIER, ctx.now().getTime());
        return reply.header('cache-control', 'no-store').send({ access_token: token, token_type: 'Bearer', expires_in: expiresIn });
      },
    );

    app.post<{ Body: TrackAlertEvent }>(
      '/carrier-webhooks/ups/track-alert',
      {
        config: { credential: bearerMatches },
        schema: { body: TrackAlertEvent, hide: true },
        onRequest: async (request) => {
          if (!bearerMatches(request)) throw refusal();
        },
      },
      async (request, reply) => {
        const event = request.body;
        // Only a live UPS shipment's; an unknown number gets the same answer, so a push tells nothing.
        const row = await findShipmentByTracking(ctx.db, CARRIER, event.trackingNumber);
        const scan = trackAlertScan(event);
        if (row?.livemode && scan) await pushScans(ctx, row, [scan]);
        else request.log.info({ carrier: CARRIER, movement: Boolean(scan) }, 'Track Alert event with nothing to track');
        // "Return a 200 status to indicate that the data was received successfully."
        return reply.code(200).send({ received: true });
      },
    );
  };
