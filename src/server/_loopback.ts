// Loopback names: the interfaces served without a token, and the only host names a tokenless
// server answers (so a DNS-rebound site cannot reach it).

const loopback = new Set(['127.0.0.1', '::1', 'localhost']);

/** True for loopback interfaces, the only ones served without a token. */
export function isLoopbackHost(host: string): boolean {
  // `localhost.` (fully qualified, one trailing dot) names the same host.
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  return loopback.has(name) || /^127\.\d+\.\d+\.\d+$/.test(name);
}
