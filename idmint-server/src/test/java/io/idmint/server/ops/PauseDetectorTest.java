package io.idmint.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.internal.threadchecker.BlockedThreadChecker;
import io.vertx.core.internal.threadchecker.BlockedThreadEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The pause detector on a manual monotonic clock, beaten by hand. */
class PauseDetectorTest {

    private static final long MS = 1_000_000;
    private static final long LIMIT = 2_000 * MS;

    private final AtomicLong nanos = new AtomicLong(1_000_000 * MS);
    private final List<Long> pauses = new ArrayList<>();
    private final PauseDetector detector = new PauseDetector(nanos::get, pauses::add, false);
    private final Logger vertx = Logger.getLogger(BlockedThreadChecker.LOGGER_NAME);
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            warnings.add(r.getMessage() + (r.getThrown() == null ? "" : " [stack]"));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        vertx.addHandler(capture);
        vertx.setUseParentHandlers(false);
    }

    @AfterEach
    void unlisten() {
        vertx.removeHandler(capture);
        vertx.setUseParentHandlers(true);
    }

    /** The process runs for {@code millis}, the detector beating. */
    private void run(long millis) {
        for (long t = 0; t < millis; t += PauseDetector.BEAT_MILLIS) {
            nanos.addAndGet(PauseDetector.BEAT_MILLIS * MS);
            detector.beat();
        }
    }

    /** The process stands still for {@code millis}: no beat. */
    private void stop(long millis) {
        nanos.addAndGet(millis * MS);
    }

    private void blockedFor(long millis) {
        detector.blocked(new BlockedThreadEvent(Thread.currentThread(), millis * MS, LIMIT,
                5_000 * MS));
    }

    @Test
    void aStopWhileATaskRan_isOnePause_notABlockedThread() {
        run(500);
        stop(3_000);
        blockedFor(3_010); // Vert.x's checker can run before the detector's first beat
        assertThat(warnings).isEmpty();
        assertThat(pauses).isEmpty();
        run(20);
        assertThat(pauses).singleElement().satisfies(p -> assertThat(p).isBetween(3_000L,
                3_040L));
        blockedFor(3_030);
        assertThat(warnings).isEmpty();
        run(5_000);
        assertThat(pauses).hasSize(1);
    }

    @Test
    void aThreadBlockedWhileTheProcessRan_isStillReported() {
        run(2_500);
        blockedFor(2_500);
        assertThat(warnings).singleElement().asString().contains("has been blocked for 2500 ms")
                .contains("time limit is 2000 ms").doesNotContain("not counting");
        run(4_000);
        blockedFor(6_000);
        assertThat(warnings).last().asString().contains("6000 ms").endsWith("[stack]");
        assertThat(pauses).isEmpty();
    }

    @Test
    void aBlockedThreadAcrossAPause_countsOnlyTheTimeTheProcessRan() {
        run(1_500);
        stop(4_000);
        run(400);
        blockedFor(1_900 + 4_000); // 1.9 s running: under the limit
        assertThat(warnings).isEmpty();
        run(600);
        blockedFor(2_500 + 4_000);
        assertThat(warnings).singleElement().asString().contains("blocked for 2480 ms")
                .contains("not counting 4020 ms the process stood still");
        assertThat(pauses).containsExactly(4_020L);
    }
}
