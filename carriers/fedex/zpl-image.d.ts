/** The one function of zpl-image we use (the package ships no types). */
declare module 'zpl-image' {
  export function rgbaToZ64(
    rgba: Uint8Array,
    width: number,
    opts?: { black?: number; rotate?: 'N' | 'L' | 'R' | 'I' | 'B'; notrim?: boolean },
  ): { length: number; rowlen: number; z64: string };
}
