/**
 * The ZooKeeper worker registry ({@code zk://host:port[,host:port…]/chroot}), found through
 * {@link io.idmint.spi.WorkerRegistryProvider}. Each worker ID has a persistent high-water-mark
 * znode whose {@code Stat.version} is the fencing token, and an ephemeral owner znode bound to
 * the claiming client's session; every step is one {@code multi()} conditional on that version.
 * Only {@link io.idmint.zookeeper.ZkRegistryProvider} is public.
 */
package io.idmint.zookeeper;
