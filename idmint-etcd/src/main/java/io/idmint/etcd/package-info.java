/**
 * The etcd worker registry, for URIs {@code etcd://host:port[,host:port…][/prefix][?timeout=2s]}.
 * Found through {@link java.util.ServiceLoader} as a {@link io.idmint.spi.WorkerRegistryProvider};
 * nothing here is meant to be named by users except that provider.
 *
 * <p>Per namespace {@code ns}, under the key prefix {@code P} (default {@code /idmint}):
 * <pre>
 * P/ns/layout                the layout spec, written once
 * P/ns/dc/{dc}/name          the datacenter's name, written once when a node gives one
 * P/ns/dc/{dc}/hwm/{worker}  the high-water mark (decimal Unix ms); no lease, it outlives holders
 * P/ns/dc/{dc}/owner/{worker} the holder ({@code host/pid}), attached to the holder's etcd lease
 * </pre>
 * The fencing token is the {@code mod_revision} of the HWM key. Claim, extend and release are
 * single {@code Txn}s that compare it (and the owner key's {@code create_revision}), so a holder
 * whose lease expired and whose worker was claimed again cannot write anything.
 */
package io.idmint.etcd;
