// The error table (domain/errors.ts): the internal failure types sit in it beside the contract's
// codes but never reach a customer as such, and a failed shipment's message comes from it.
import { describe, expect, it } from 'vitest';
import { CODE, customerFailureMessage, ERROR_TABLE, ERRORS, errorCodeOf, GENERIC_FAILURE_MESSAGE, isErrorCode, type ErrorCode } from '../../domain/index.js';

const INTERNAL = [
  CODE.carrier_ambiguous,
  CODE.carrier_retryable,
  CODE.shipment_missing,
  CODE.invalid_data,
  CODE.card_processor_error,
  CODE.card_processor_retryable,
  CODE.webhook_event_missing,
  CODE.webhook_account_busy,
  CODE.webhook_delivery_failed,
];

describe('the error table', () => {
  it('holds the internal failure types as internal 500s, outside the contract codes', () => {
    const internal = Object.entries(ERROR_TABLE).filter(([, e]) => e.internal).map(([code]) => code);
    expect(internal.sort()).toEqual([...INTERNAL].sort());
    for (const code of INTERNAL) {
      expect(ERROR_TABLE[code].status, code).toBe(500);
      expect(isErrorCode(code), code).toBe(false);
      expect(Object.keys(ERRORS), code).not.toContain(code);
      expect(errorCodeOf(code), code).toBe(CODE.internal_error);
    }
    expect(Object.keys(ERRORS)).toHaveLength(Object.keys(ERROR_TABLE).length - INTERNAL.length);
    for (const code of Object.keys(ERRORS)) expect(isErrorCode(code), code).toBe(true);
  });

  it('names each code by itself in CODE', () => {
    for (const code of Object.keys(ERROR_TABLE)) expect(CODE[code as keyof typeof CODE]).toBe(code);
  });

  it("gives a failed shipment our words, the caller's where the table keeps them, and never a carrier's otherwise", () => {
    const carrierText = 'HTTP 400 {"errors":[{"code":"X-17","message":"bad zip"}]}';
    expect(customerFailureMessage(CODE.carrier_error, carrierText)).toBe('The carrier refused the purchase; nothing was bought or charged.');
    expect(customerFailureMessage(CODE.card_declined, carrierText)).toBe('The card was declined; nothing was bought or charged.');
    expect(customerFailureMessage(CODE.carrier_unavailable, carrierText)).toMatch(/^The carrier could not be reached in time/);
    expect(customerFailureMessage(CODE.insufficient_funds, 'The balance does not cover the price of this label.')).toBe(
      'The balance does not cover the price of this label.',
    );
    expect(customerFailureMessage(CODE.service_not_available, 'Service x is not available.')).toBe('Service x is not available.');
    expect(customerFailureMessage(CODE.internal_error, carrierText)).toBe(GENERIC_FAILURE_MESSAGE);
    expect(customerFailureMessage(CODE.not_found, carrierText)).toBe(GENERIC_FAILURE_MESSAGE);
    // A code from an old history that the table no longer has.
    expect(customerFailureMessage('gone_code' as ErrorCode, carrierText)).toBe(GENERIC_FAILURE_MESSAGE);
  });
});
