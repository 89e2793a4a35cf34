/**
 * What an operator sees: metrics ({@link io.idmint.server.ops.Metrics}), log set-up, the event
 * and access logs, pause detection and the builds version.
 *
 * <p>May use: the core and the metrics and logging libraries. Nothing else of the server: every
 * layer reports here, so this layer knows none of them (a transport names its meters by
 * strings and indexes, not by its own types).
 */
package io.idmint.server.ops;
