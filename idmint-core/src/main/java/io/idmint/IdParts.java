package io.idmint;

import java.time.Instant;

/**
 * The parts of one ID, as {@link Layout#decode(long)} reads them.
 *
 * @param id the ID itself
 * @param timestampMillis Unix milliseconds at the start of the ID's tick (the epoch added back)
 * @param datacenterId the datacenter field, 0 when the layout has none
 * @param workerId the worker field, 0 when the layout has none
 * @param shardId the shard field, 0 when the layout has none
 * @param sequence the sequence within the tick
 */
public record IdParts(long id, long timestampMillis, int datacenterId, int workerId, int shardId,
        long sequence) {

    public Instant timestamp() {
        return Instant.ofEpochMilli(timestampMillis);
    }
}
