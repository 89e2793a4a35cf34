/**
 * JMH benchmarks of idmint beside JDK baselines, built into {@code target/benchmarks.jar}. Not
 * part of the published API; each class's Javadoc has its exact run command and target.
 */
package io.idmint.benchmarks;
