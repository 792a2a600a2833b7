/**
 * Where a real carrier's generated schemas come from (`npm run carrier-schemas`,
 * tools/carrier-schemas/README.md): the operations we use in its published documents, and the
 * corrections of those documents where they contradict themselves. Each carrier declares its own
 * (`CarrierModule.schemaSources`); the generator reads them through the registry.
 */

/** A JSON value as a parsed document holds it. */
export type SchemaJson = null | boolean | number | string | SchemaJson[] | { [key: string]: SchemaJson };

/** An operation we use: its file name under `carriers/<carrier>/schemas/` and where it is in its document. */
export interface SchemaOperation {
  readonly name: string;
  /** The document's file, relative to the carrier documents' folder (`fedex/ship-api.json`). */
  readonly document: string;
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  readonly path: string;
  /**
   * JSON pointers to the document's own examples of the request body: each must fit the generated
   * request schema (checked closed, as a request we send), or the generator stops.
   */
  readonly examples?: readonly string[];
}

/**
 * One targeted correction of a carrier's document where it contradicts itself: the value at
 * `pointer` (inside `document`) was `was` and becomes `value` (or is removed when `value` is
 * undefined). `was` is checked, so an erratum that no longer applies (the carrier fixed its
 * document, or moved the field) stops the generator instead of silently changing something else.
 */
export interface SchemaErratum {
  readonly document: string;
  readonly pointer: string;
  readonly was: SchemaJson | undefined;
  readonly value: SchemaJson | undefined;
  readonly reason: string;
}

/** A carrier's operations and errata, in the order the generator writes them. */
export interface CarrierSchemaSources {
  readonly operations: readonly SchemaOperation[];
  readonly errata: readonly SchemaErratum[];
}
