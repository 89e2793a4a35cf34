/**
 * The ZooKeeper worker registry and segment range store
 * ({@code zk://host:port[,host:port…]/chroot}, {@code zks://…} over TLS, digest users with
 * ACLs: {@code ZkUri}, {@code ZkSecurity}), found through
 * {@link io.idmint.spi.WorkerRegistryProvider} and {@link io.idmint.spi.RangeStoreProvider}.
 * Each worker ID has a persistent high-water-mark znode whose {@code Stat.version} is the fencing
 * token, and an ephemeral owner znode bound to the claiming client's session; every step is one
 * {@code multi()} conditional on that version. Each segment tag is a persistent znode whose value
 * moves by a {@code setData} conditional on its version. Only
 * {@link io.idmint.zookeeper.ZkRegistryProvider} and
 * {@link io.idmint.zookeeper.ZkRangeStoreProvider} are public.
 */
package io.idmint.zookeeper;
