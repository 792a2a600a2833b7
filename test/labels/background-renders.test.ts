import { describe, expect, it } from 'vitest';
import { BackgroundRenders } from '../../activities/index.js';

// The label render a purchase's capture starts is not waited for (the answer goes first), but a
// stopping worker finishes it before closing the database, and a failed render is not fatal.
describe('label renders started by a capture', () => {
  it('runs in the background, is counted until it ends, and is drained by a stopping worker', async () => {
    const renders = new BackgroundRenders();
    let finish!: () => void;
    const done: string[] = [];
    const slow = (p: { shipmentId: string }) =>
      new Promise<void>((resolve) => {
        finish = () => {
          done.push(p.shipmentId);
          resolve();
        };
      });
    renders.start('shp_1', () => slow({ shipmentId: 'shp_1' }));
    expect(renders.size).toBe(1);
    let drained = false;
    const draining = renders.drain().then(() => (drained = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(drained, 'drain waits for the render under way').toBe(false);
    finish();
    await draining;
    expect(done).toEqual(['shp_1']);
    expect(renders.size).toBe(0);
  });

  it('swallows a failed render (a download renders the file later) and forgets it', async () => {
    const renders = new BackgroundRenders();
    renders.start('shp_2', async () => {
      throw new Error('database gone');
    });
    await renders.drain();
    expect(renders.size).toBe(0);
  });
});
