import { REAL_CARRIER_MODULES, type SchemaErratum } from '../../carriers/index.js';
import type { OperationSpec } from './operation.js';

/** A carrier whose schemas we generate: its folder under the carrier documents and under `carriers/`. */
export interface CarrierSpec {
  readonly carrier: string;
  readonly operations: readonly OperationSpec[];
  readonly errata: readonly SchemaErratum[];
}

/** A carrier's folder: its code with dashes (`dhl_express` lives in `carriers/dhl-express/`). */
export const carrierFolder = (code: string): string => code.replace(/_/g, '-');

/**
 * Every real carrier the registry lists that declares where its schemas come from
 * (`CarrierModule.schemaSources`, in its own folder), in the registry's order.
 */
export function carrierSpecs(): CarrierSpec[] {
  return REAL_CARRIER_MODULES.flatMap((m) => (m.schemaSources ? [{ carrier: carrierFolder(m.definition.code), ...m.schemaSources }] : []));
}
