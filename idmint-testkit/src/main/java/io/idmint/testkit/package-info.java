/**
 * Test support for idmint and for anyone writing a backend: a manual time source that can jump
 * backwards, an in-memory registry, the {@link io.idmint.spi.WorkerRegistry} contract every
 * backend's test extends, and the uniqueness oracle.
 */
package io.idmint.testkit;
