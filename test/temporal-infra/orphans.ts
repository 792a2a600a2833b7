// Shared by the dev-server and time-skipping tests: is a process alive, where a server listens, and
// the check that a server started by a child process dies with that child, even one SIGKILLed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { tcpConnects } from '../../tools/temporal/process-utils.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function hostPort(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  return [address.slice(0, i), Number(address.slice(i + 1))];
}

/**
 * Runs `fixture` (a script that starts a server and prints `{ pid, address }` on its first line),
 * SIGKILLs it, and expects the server's process to die and its port to close.
 */
export async function expectServerDiesWithParent(fixture: string, args: string[] = []): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      child.once('exit', (code) => reject(new Error(`fixture exited early (${code})`)));
    });
    const { pid, address } = JSON.parse(line) as { pid: number; address: string };
    expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    await expect.poll(() => alive(pid), { timeout: 20_000, interval: 200 }).toBe(false);
    const [host, port] = hostPort(address);
    expect(await tcpConnects(host, port)).toBe(false);
  } finally {
    child.kill('SIGKILL');
  }
}
