/** One floor run: throughput and latency at `clients` at a time, and each process's CPU per purchase (ms). */
export interface FloorResult {
  clients: number;
  workflows: number;
  warmup: number;
  perSecond: number;
  p50: number;
  p99: number;
  cpu: { temporal: number; worker: number; client: number; total: number };
}
