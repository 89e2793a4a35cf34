// @idmint/client: the Node.js client of idmint (README.md; docs/clients.md, "Node.js").
export { IdClient, SegmentClient, SerialClient } from './client.js';
export { IdServiceUnavailableError, IdClientClosedError, IdmintArgumentError } from './errors.js';
export { Layout, decode } from './layout.js';
export { DEFAULTS } from './options.js';
