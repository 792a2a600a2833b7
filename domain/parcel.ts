export interface Parcel {
  weight_g: number;
  length_mm: number;
  width_mm: number;
  height_mm: number;
}

/** Bounds of the API itself; each service may be tighter (contract: Resources, Parcel). */
export const PARCEL_LIMITS = { maxWeightG: 70_000, maxSideMm: 2_000 } as const;

export interface ServiceBounds {
  maxWeightG: number;
  maxSideMm: number;
  /** Length plus girth (2 × (width + height)), where the service limits it. */
  maxLengthPlusGirthMm?: number;
}

export function fitsBounds(parcel: Parcel, bounds: ServiceBounds): boolean {
  const sides = [parcel.length_mm, parcel.width_mm, parcel.height_mm].sort((a, b) => b - a);
  if (parcel.weight_g > bounds.maxWeightG) return false;
  if (sides[0] > bounds.maxSideMm) return false;
  if (bounds.maxLengthPlusGirthMm !== undefined) {
    const girth = 2 * (sides[1] + sides[2]);
    if (sides[0] + girth > bounds.maxLengthPlusGirthMm) return false;
  }
  return true;
}
