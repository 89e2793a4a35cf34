/**
 * A Java client of idmint servers over gRPC (see docs/client.md): {@link
 * io.idmint.client.IdClient} hands out IDs from a local buffer that a background refill keeps
 * filled from one server at a time, failing over to the next endpoint when one stops answering.
 */
package io.idmint.client;
