import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ApiProcess {
  url: string;
  /** Every line the process wrote to stdout (pino JSON) so far. */
  lines: string[];
  stop(): Promise<void>;
}

/**
 * A second API as a separate operating-system process (`api/main.ts`, as `npm run api` starts it),
 * on the run's PostgreSQL and Temporal: nothing is shared with the test's own API but the database.
 */
export async function startApiProcess(env: Record<string, string> = {}): Promise<ApiProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const url = await new Promise<string>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => reject(new Error(`API process did not start in time\n${stderr}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`API process exited with ${code}\n${stderr}`));
    });
  });
  return {
    url,
    lines,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
