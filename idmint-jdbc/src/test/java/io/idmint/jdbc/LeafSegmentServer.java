package io.idmint.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idmint.spi.Range;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A re-enactment of a Leaf server's segment allocator (Meituan Leaf 1.0.1, {@code leaf-core}'s
 * {@code SegmentIDGenImpl} and {@code IDAllocDaoImpl}), written from reading its source, for the
 * rolling-migration tests only. Leaf itself cannot run here: {@code leaf-core} is not published
 * to a registry (its own dependencies, MyBatis 3.3.0, perf4j and Druid, do resolve).
 *
 * <p>What is kept exactly: its SQL (the UPDATE by the row's step for a buffer's first two
 * segments, by the buffer's own step after that, each followed by the row read back in the same
 * transaction, a connection at the database's default isolation with auto-commit off); the
 * segment it derives ({@code value = max_id - step}, served while {@code value < max_id}); its
 * double buffer under a read-write lock, the next segment loaded on a pool thread once less
 * than 90 % of the current one is idle; its step rule (double while a segment lasts under 15
 * minutes, up to 1,000,000; halve past 30, not below the row's step); its error codes (-1 not
 * initialised, -2 unknown tag, -3 both segments empty). Leaf's 60-second cache refresh is a
 * one-time load here ({@link #init}).
 */
final class LeafSegmentServer implements AutoCloseable {

    static final long NOT_INIT = -1;
    static final long KEY_NOT_EXISTS = -2;
    static final long TWO_SEGMENTS_ARE_NULL = -3;
    private static final int MAX_STEP = 1_000_000;
    private static final long SEGMENT_DURATION = 15 * 60 * 1000L;

    private final HikariDataSource dataSource;
    private final ExecutorService service = new ThreadPoolExecutor(5, Integer.MAX_VALUE, 60L,
            TimeUnit.SECONDS, new SynchronousQueue<>());
    private final Map<String, Buffer> cache = new ConcurrentHashMap<>();
    /** Every segment loaded from the table, for the test's accounting. */
    final Queue<Range> loaded = new ConcurrentLinkedQueue<>();
    private volatile boolean initOk;
    private volatile boolean killed;

    /** One segment: {@code value} is the next ID, served while below {@code max}. */
    private static final class Segment {
        final AtomicLong value = new AtomicLong();
        volatile long max;
        volatile int step;

        long idle() {
            return max - value.get();
        }
    }

    /** Leaf's SegmentBuffer: two segments, the current position and the loader's flags. */
    private static final class Buffer {
        final Segment[] segments = {new Segment(), new Segment()};
        volatile int currentPos;
        volatile boolean nextReady;
        volatile boolean initOk;
        final AtomicBoolean threadRunning = new AtomicBoolean();
        final ReadWriteLock lock = new ReentrantReadWriteLock();
        volatile int step;
        volatile int minStep;
        volatile long updateTimestamp;

        Segment current() {
            return segments[currentPos];
        }

        int nextPos() {
            return (currentPos + 1) % 2;
        }
    }

    /** {@code jdbcUrl} is the plain driver URL of the database holding {@code leaf_alloc}. */
    LeafSegmentServer(String jdbcUrl) {
        HikariConfig h = new HikariConfig();
        h.setJdbcUrl(jdbcUrl);
        h.setMaximumPoolSize(4);
        this.dataSource = new HikariDataSource(h);
    }

    /** Loads the tags, as Leaf's init does. */
    LeafSegmentServer init() throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT biz_tag FROM leaf_alloc");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                cache.putIfAbsent(rs.getString(1), new Buffer());
            }
        }
        initOk = true;
        return this;
    }

    /** An ID, or one of Leaf's negative error codes. */
    long get(String key) {
        if (killed) {
            throw new IllegalStateException("this Leaf server was killed");
        }
        if (!initOk) {
            return NOT_INIT;
        }
        Buffer buffer = cache.get(key);
        if (buffer == null) {
            return KEY_NOT_EXISTS;
        }
        if (!buffer.initOk) {
            synchronized (buffer) {
                if (!buffer.initOk) {
                    try {
                        updateSegmentFromDb(key, buffer, buffer.current());
                        buffer.initOk = true;
                    } catch (SQLException | RuntimeException e) {
                        // Leaf logs it and goes on to the (empty) buffer
                    }
                }
            }
        }
        return getIdFromSegmentBuffer(key, buffer);
    }

    private void updateSegmentFromDb(String key, Buffer buffer, Segment segment)
            throws SQLException {
        long[] alloc;
        if (!buffer.initOk) {
            alloc = updateMaxId(key, 0);
            buffer.step = (int) alloc[1];
            buffer.minStep = (int) alloc[1];
        } else if (buffer.updateTimestamp == 0) {
            alloc = updateMaxId(key, 0);
            buffer.updateTimestamp = System.currentTimeMillis();
            buffer.step = (int) alloc[1];
            buffer.minStep = (int) alloc[1];
        } else {
            long duration = System.currentTimeMillis() - buffer.updateTimestamp;
            int nextStep = buffer.step;
            if (duration < SEGMENT_DURATION) {
                if (nextStep * 2 <= MAX_STEP) {
                    nextStep = nextStep * 2;
                }
            } else if (duration >= SEGMENT_DURATION * 2) {
                nextStep = nextStep / 2 >= buffer.minStep ? nextStep / 2 : nextStep;
            }
            alloc = updateMaxId(key, nextStep);
            buffer.updateTimestamp = System.currentTimeMillis();
            buffer.step = nextStep;
            buffer.minStep = (int) alloc[1];
        }
        // Leaf sets the value before the max
        segment.value.set(alloc[0] - buffer.step);
        segment.max = alloc[0];
        segment.step = buffer.step;
        loaded.add(new Range(alloc[0] - buffer.step, alloc[0]));
    }

    /**
     * Leaf's DAO: the UPDATE by the row's step ({@code customStep} 0) or by a custom step, then
     * the row read back, then commit; returns {max_id, step}.
     */
    private long[] updateMaxId(String key, int customStep) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                String update = customStep == 0
                        ? "UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?"
                        : "UPDATE leaf_alloc SET max_id = max_id + ? WHERE biz_tag = ?";
                try (PreparedStatement ps = c.prepareStatement(update)) {
                    int i = 1;
                    if (customStep != 0) {
                        ps.setInt(i++, customStep);
                    }
                    ps.setString(i, key);
                    ps.executeUpdate();
                }
                long[] row;
                try (PreparedStatement ps = c.prepareStatement(
                        "SELECT biz_tag, max_id, step FROM leaf_alloc WHERE biz_tag = ?")) {
                    ps.setString(1, key);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        row = new long[] {rs.getLong(2), rs.getInt(3)};
                    }
                }
                c.commit();
                return row;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private long getIdFromSegmentBuffer(String key, Buffer buffer) {
        while (true) {
            buffer.lock.readLock().lock();
            try {
                Segment segment = buffer.current();
                if (!buffer.nextReady && segment.idle() < 0.9 * segment.step
                        && buffer.threadRunning.compareAndSet(false, true)) {
                    service.execute(() -> loadNext(key, buffer));
                }
                long value = segment.value.getAndIncrement();
                if (value < segment.max) {
                    return value;
                }
            } finally {
                buffer.lock.readLock().unlock();
            }
            waitAndSleep(buffer);
            buffer.lock.writeLock().lock();
            try {
                Segment segment = buffer.current();
                long value = segment.value.getAndIncrement();
                if (value < segment.max) {
                    return value;
                }
                if (buffer.nextReady) {
                    buffer.currentPos = buffer.nextPos();
                    buffer.nextReady = false;
                } else {
                    return TWO_SEGMENTS_ARE_NULL;
                }
            } finally {
                buffer.lock.writeLock().unlock();
            }
        }
    }

    private void loadNext(String key, Buffer buffer) {
        Segment next = buffer.segments[buffer.nextPos()];
        boolean updateOk = false;
        try {
            updateSegmentFromDb(key, buffer, next);
            updateOk = true;
        } catch (SQLException | RuntimeException e) {
            // Leaf logs it; the next caller past 10 % tries again
        } finally {
            if (updateOk) {
                buffer.lock.writeLock().lock();
                buffer.nextReady = true;
                buffer.threadRunning.set(false);
                buffer.lock.writeLock().unlock();
            } else {
                buffer.threadRunning.set(false);
            }
        }
    }

    /** Leaf's wait for a running loader: spin, then one 10 ms back-off (Leaf's own). */
    private static void waitAndSleep(Buffer buffer) {
        int roll = 0;
        while (buffer.threadRunning.get()) {
            roll += 1;
            if (roll > 10000) {
                try {
                    TimeUnit.MILLISECONDS.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                break;
            }
        }
    }

    /**
     * Kills this server as a crash would: it serves nothing more and its buffered segments are
     * lost; a load in flight finishes (or not) on its own, as the database would see it.
     */
    void kill() {
        killed = true;
    }

    /** The segments loaded, in load order. */
    List<Range> segments() {
        return new ArrayList<>(loaded);
    }

    @Override
    public void close() throws InterruptedException {
        killed = true;
        service.shutdown();
        service.awaitTermination(1, TimeUnit.MINUTES);
        dataSource.close();
    }
}
