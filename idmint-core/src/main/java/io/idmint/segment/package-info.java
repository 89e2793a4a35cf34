/**
 * Segment generation (Leaf's segment mode; docs/segments.md): {@link io.idmint.segment.Segments}
 * builds a {@link io.idmint.segment.SegmentGenerator} that serves dense, increasing IDs per named
 * tag from ranges leased out of a {@link io.idmint.spi.RangeStore}, opened by URI with
 * {@link io.idmint.segment.RangeStores}. Independent of the Snowflake side: it shares only
 * {@link io.idmint.TimeSource} and {@link io.idmint.IdUnavailableException} with it. Everything
 * else in this package is package-private implementation.
 */
package io.idmint.segment;
