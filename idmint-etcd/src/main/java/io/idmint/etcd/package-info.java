/**
 * The etcd worker registry and segment range store, for URIs
 * {@code etcd[s]://host:port[,host:port…][/prefix][?timeout=2s&…]} ({@code etcds}: TLS; users
 * and certificates as options, see {@code EtcdUri}). Found through
 * {@link java.util.ServiceLoader} as a {@link io.idmint.spi.WorkerRegistryProvider} and a
 * {@link io.idmint.spi.RangeStoreProvider}; nothing here is meant to be named by users except
 * those providers.
 *
 * <p>Per namespace {@code ns}, under the key prefix {@code P} (default {@code /idmint}):
 * <pre>
 * P/ns/layout                the layout spec, written once
 * P/ns/dc/{dc}/name          the datacenter's name, written once when a node gives one
 * P/ns/dc/{dc}/hwm/{worker}  the high-water mark (decimal Unix ms); no lease, it outlives holders
 * P/ns/dc/{dc}/owner/{worker} the holder ({@code host/pid}, then {@code max-ahead-ms=N}:
 *                             HolderText), attached to the holder's etcd lease
 * P/segments/{tag}           a segment tag: "{next} {step}"; so no namespace is "segments"
 * </pre>
 * The fencing token is the {@code mod_revision} of the HWM key. Claim, extend and release are
 * single {@code Txn}s that compare it (and the owner key's {@code create_revision}), so a holder
 * whose lease expired and whose worker was claimed again cannot write anything. A segment
 * allocation is a {@code Txn} that compares the tag key's {@code mod_revision}.
 */
package io.idmint.etcd;
