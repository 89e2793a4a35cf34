package io.idmint.formats;

import io.idmint.TimeSource;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link ObjectId} generator. (second, counter, how many this second) advance together
 * under a lock; the section is a clock read and three updates, and waits for the clock only
 * when 2<sup>24</sup> ObjectIds were issued in one second (every thread would have to wait then
 * anyway).
 */
final class ObjectIdGenerator implements FormatGenerator<ObjectId> {

    static final int PER_SECOND = ObjectId.MAX_COUNTER + 1;

    private final TimeSource time;
    private final long random;
    private final int perSecond;
    private final ReentrantLock lock = new ReentrantLock();
    private long lastSecond = -1;
    private int counter;
    private int issuedThisSecond;

    /**
     * @param seed top 40 bits: the random value; low 24: the counter's start
     * @param perSecond {@link #PER_SECOND}; fewer in tests, to reach the limit quickly
     */
    ObjectIdGenerator(TimeSource time, long seed, int perSecond) {
        this.time = time;
        this.perSecond = perSecond;
        this.random = seed >>> 24;
        this.counter = (int) seed & ObjectId.MAX_COUNTER;
    }

    @Override
    public ObjectId next() {
        lock.lock();
        try {
            while (true) {
                long now = Math.floorDiv(time.currentTimeMillis(), 1000);
                if (now < 0 || now > ObjectId.MAX_SECONDS) {
                    throw FormatClock.timeOutOfRange("ObjectId", now, "0 to 2^32-1 s");
                }
                if (now > lastSecond) {
                    lastSecond = now;
                    issuedThisSecond = 0;
                }
                if (issuedThisSecond < perSecond) {
                    break;
                }
                // The counter went all the way round this second: the next value would repeat.
                FormatClock.awaitMillis(time, (lastSecond + 1) * 1000, "ObjectId");
            }
            int c = counter;
            counter = (counter + 1) & ObjectId.MAX_COUNTER;
            issuedThisSecond++;
            return new ObjectId(lastSecond, random, c);
        } finally {
            lock.unlock();
        }
    }
}
