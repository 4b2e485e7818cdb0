// A candidate's identity must be unique among every process that may ever hold the lease: the
// hostname says where the leader runs, the random suffix tells apart two processes on one host (and
// a restarted process from its previous life, whose lease it must not silently inherit).
import { hostname } from 'node:os';

export function candidateIdentity(host: string = safeHostname()): string {
  return `${host}_${crypto.randomUUID()}`;
}

function safeHostname(): string {
  try {
    return hostname() || 'unknown';
  } catch {
    // Deno without --allow-sys throws; the random suffix alone still keeps identities unique.
    return 'unknown';
  }
}
