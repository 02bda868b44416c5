// A graphql-ws client of a test service: it trusts the service's certificate, sends a bearer token in
// `connection_init`, and never reconnects (a closed connection is something the test looks at).
import { type Client, type ClientOptions, createClient } from 'graphql-ws';
import { WebSocket } from 'ws';

export function wsClient(
  service: { origin: string; cert: string },
  token: string,
  options: Partial<ClientOptions> = {},
): Client {
  const { cert } = service;
  return createClient({
    url: `${service.origin.replace('https', 'wss')}/graphql`,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { ca: cert });
      }
    },
    connectionParams: { Authorization: `Bearer ${token}` },
    retryAttempts: 0,
    ...options,
  });
}
