// The ports the tests' servers listen on. ATTN_TEST_PORTS=9100-9199 (or one port, 9100) gives
// them a range: each server takes the first port of the range that is free when it starts, so the
// servers of one test file, and test runs side by side, each get their own. Without it the system
// picks a free port (port 0), which no other run can be holding.
//
// Every server a test starts goes through here: the page's server (harness.js startSession, which
// the notebook test uses too), the course sites and proxies of the browser tests, and the servers
// of tests/node/serve.test.js.
import { serve } from '../scripts/serve.js';

/**
 * The port range of ATTN_TEST_PORTS, or null when it is unset or empty.
 * @param {string|undefined} text "9100-9199" or "9100"
 * @returns {{first: number, last: number}|null}
 * @throws {Error} naming the variable when the text is not a range of ports 1-65535
 */
export function testPortRange(text = process.env.ATTN_TEST_PORTS) {
  if (text === undefined || text.trim() === '') return null;
  const m = /^\s*(\d{1,5})\s*(?:-\s*(\d{1,5})\s*)?$/.exec(text);
  const first = m ? Number(m[1]) : NaN;
  const last = m ? Number(m[2] ?? m[1]) : NaN;
  if (!(first >= 1 && last <= 65535 && first <= last)) {
    throw new Error(`ATTN_TEST_PORTS must be a port or a range of ports from 1 to 65535, like 9100-9199 (got "${text}")`);
  }
  return { first, last };
}

/** The ports to try in order: the range's, or [0] (the system's choice). */
export function testPorts(range = testPortRange()) {
  if (!range) return [0];
  return Array.from({ length: range.last - range.first + 1 }, (_, i) => range.first + i);
}

/**
 * Listens with `server` (a node:http or node:net server) on 127.0.0.1, on the first free port of
 * ATTN_TEST_PORTS (a port in use is skipped; any other error is thrown). Resolves to the server.
 * @template {import('node:net').Server} S
 * @param {S} server
 * @returns {Promise<S>}
 */
export async function listenOnTestPort(server, { host = '127.0.0.1', range = testPortRange() } = {}) {
  for (const port of testPorts(range)) {
    const taken = await new Promise((done, fail) => {
      const onError = (error) => {
        server.off('listening', onListening);
        if (error.code === 'EADDRINUSE' || error.code === 'EACCES') done(true);
        else fail(error);
      };
      const onListening = () => {
        server.off('error', onError);
        done(false);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(port, host);
    });
    if (!taken) return server;
  }
  throw new Error(`no free port in ATTN_TEST_PORTS=${range.first}-${range.last}`);
}

/** The project's server (scripts/serve.js serve()) on the first free port of ATTN_TEST_PORTS. */
export function serveOnTestPort(options = {}) {
  const range = testPortRange();
  const ports = testPorts(range);
  return serve({ ...options, port: ports[0], tries: ports.length }).catch((error) => {
    throw range ? new Error(`no free port in ATTN_TEST_PORTS=${range.first}-${range.last} (${error.message})`) : error;
  });
}
