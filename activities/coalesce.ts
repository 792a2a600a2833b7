/**
 * Calls of one kind that a worker runs at about the same time, sent to the carrier together where it
 * takes many in one call (FedEx's trackingnumbers takes 30 tracking numbers, UPS Track Alert 100
 * subscriptions): each caller waits at most `windowMs` for others to join it.
 */
export interface Coalescer<R> {
  /** The result for `item`, from a call shared with the other items of its key's window. */
  run(key: string, item: string, max: number, send: (items: string[]) => Promise<Map<string, R | Error>>): Promise<R>;
}

interface Waiting<R> {
  resolve(value: R): void;
  reject(error: unknown): void;
}

interface Window<R> {
  items: Map<string, Waiting<R>[]>;
  timer?: NodeJS.Timeout;
  send: (items: string[]) => Promise<Map<string, R | Error>>;
}

export function createCoalescer<R>(windowMs: number): Coalescer<R> {
  const open = new Map<string, Window<R>>();

  function flush(key: string): void {
    const window = open.get(key);
    if (!window) return;
    open.delete(key);
    clearTimeout(window.timer);
    const items = [...window.items.keys()];
    window.send(items).then(
      (results) => {
        for (const [item, waiting] of window.items) {
          const result = results.get(item);
          for (const w of waiting) {
            if (result === undefined) w.reject(new Error(`the batched call answered nothing for ${item}`));
            else if (result instanceof Error) w.reject(result);
            else w.resolve(result);
          }
        }
      },
      (error: unknown) => {
        for (const waiting of window.items.values()) for (const w of waiting) w.reject(error);
      },
    );
  }

  return {
    run(key, item, max, send) {
      return new Promise<R>((resolve, reject) => {
        let window = open.get(key);
        if (!window) {
          window = { items: new Map(), send };
          open.set(key, window);
          window.timer = setTimeout(() => flush(key), windowMs);
        }
        // The same item twice in one window (two polls of one number) shares its answer.
        const waiting = window.items.get(item) ?? [];
        waiting.push({ resolve, reject });
        window.items.set(item, waiting);
        if (window.items.size >= max) flush(key);
      });
    },
  };
}
