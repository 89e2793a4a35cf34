package io.idmint.formats;

import io.idmint.TimeSource;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;

/**
 * The {@link UuidV7} generator. (millisecond, counter) is 90 bits, too wide for one atomic
 * {@code long}, so it advances under a lock; the critical section is a clock read, a compare and
 * two random draws. A {@link ReentrantLock} rather than {@code synchronized}, so virtual threads
 * do not pin their carrier.
 */
final class UuidV7Generator implements FormatGenerator<UUID> {

    static final int COUNTER_BITS = 42;
    static final long MAX_MILLIS = (1L << 48) - 1;
    private static final long VERSION_7 = 0x7000L;
    private static final long VARIANT_RFC = 0x8000_0000_0000_0000L;

    private final TimeSource time;
    private final RandomGenerator random;
    private final long maxCounter;
    /** Random start of the counter in a new millisecond; top bit zero, the rollover guard. */
    private final long seedMask;
    private final ReentrantLock lock = new ReentrantLock();
    private long lastMillis = -1;
    private long counter;

    /** @param counterBits 42 in production; smaller in tests, to reach the rollover */
    UuidV7Generator(TimeSource time, RandomGenerator random, int counterBits) {
        this.time = time;
        this.random = random;
        this.maxCounter = (1L << counterBits) - 1;
        this.seedMask = maxCounter >>> 1;
    }

    @Override
    public UUID next() {
        long millis;
        long count;
        long tail;
        lock.lock();
        try {
            long now = time.currentTimeMillis();
            if (now < 0 || now > MAX_MILLIS) {
                throw FormatClock.timeOutOfRange("UUIDv7", now, "0 to 2^48-1 ms");
            }
            if (now > lastMillis) {
                lastMillis = now;
                counter = random.nextLong() & seedMask;
            } else if (counter < maxCounter) {
                counter++;
            } else {
                if (lastMillis == MAX_MILLIS) {
                    throw FormatClock.timeOutOfRange("UUIDv7", lastMillis + 1, "0 to 2^48-1 ms");
                }
                lastMillis++;
                counter = random.nextLong() & seedMask;
            }
            millis = lastMillis;
            count = counter;
            tail = random.nextInt() & 0xFFFF_FFFFL;
        } finally {
            lock.unlock();
        }
        int lowBits = COUNTER_BITS - 12;
        long msb = millis << 16 | VERSION_7 | (count >>> lowBits) & 0xFFF;
        long lsb = VARIANT_RFC | (count & ((1L << lowBits) - 1)) << 32 | tail;
        return new UUID(msb, lsb);
    }
}
