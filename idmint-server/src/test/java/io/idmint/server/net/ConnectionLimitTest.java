package io.idmint.server.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConnectionLimitTest {

    private final ManualTimeSource time = new ManualTimeSource(1_780_000_000_000L);
    private final List<String> closed = new ArrayList<>();
    private final ConnectionLimit limit = new ConnectionLimit("http", 3, Duration.ofSeconds(30),
            time, (transport, reason) -> closed.add(transport + ":" + reason));

    /** A connection whose closer records that it was closed. */
    private final class Conn {
        final ConnectionLimit.Slot slot;
        boolean isClosed;

        Conn(boolean evictable) {
            this.slot = limit.open(() -> isClosed = true, evictable);
        }
    }

    @Test
    void open_atTheLimit_closesTheOldestIdleOne_notABusyOne() {
        Conn a = new Conn(true);
        Conn b = new Conn(true);
        Conn c = new Conn(true);
        a.slot.started();

        Conn d = new Conn(true);

        assertThat(d.slot).isNotNull();
        assertThat(a.isClosed).as("busy").isFalse();
        assertThat(b.isClosed).as("the oldest idle").isTrue();
        assertThat(c.isClosed).isFalse();
        assertThat(limit.open()).isEqualTo(3);
        assertThat(closed).containsExactly("http:EVICTED");
    }

    @Test
    void open_everyConnectionBusy_refusesTheNewOne() {
        for (int i = 0; i < 3; i++) {
            new Conn(true).slot.started();
        }

        assertThat(new Conn(true).slot).isNull();
        assertThat(limit.open()).isEqualTo(3);
        assertThat(closed).containsExactly("http:REFUSED");
    }

    @Test
    void open_notEvictable_refusesAtTheLimit() {
        for (int i = 0; i < 3; i++) {
            new Conn(false);
        }

        assertThat(new Conn(false).slot).isNull();
        assertThat(closed).containsExactly("http:REFUSED");
    }

    @Test
    void release_givesThePlaceBack_once() {
        Conn a = new Conn(true);
        new Conn(true);
        new Conn(true);

        a.slot.release();
        a.slot.release();

        assertThat(limit.open()).isEqualTo(2);
        assertThat(new Conn(true).isClosed).isFalse();
        assertThat(closed).isEmpty();
    }

    @Test
    void closeIdle_closesWhatHadNoRequestForTheTimeout_sinceItsLastAnswer() {
        Conn a = new Conn(true);
        Conn b = new Conn(true);
        Conn c = new Conn(true);
        time.advance(Duration.ofSeconds(20));
        b.slot.started();
        b.slot.ended();
        c.slot.started();
        time.advance(Duration.ofSeconds(11));

        limit.closeIdle();

        assertThat(a.isClosed).as("idle 31 s since it opened").isTrue();
        assertThat(b.isClosed).as("idle 11 s since its answer").isFalse();
        assertThat(c.isClosed).as("a request in flight").isFalse();
        assertThat(closed).containsExactly("http:IDLE");
        assertThat(limit.open()).isEqualTo(2);
    }

    @Test
    void manyThreads_openAndRelease_neverHoldMoreThanTheLimit() throws Exception {
        ConnectionLimit big = new ConnectionLimit("http", 50, Duration.ofSeconds(30), time,
                (transport, reason) -> { });
        AtomicInteger over = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 20_000; i++) {
                    ConnectionLimit.Slot s = big.open(() -> { }, true);
                    if (big.open() > 50) {
                        over.incrementAndGet();
                    }
                    if (s != null && i % 3 != 0) {
                        s.release();
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        go.countDown();
        for (Thread th : threads) {
            th.join();
        }

        assertThat(over.get()).isZero();
        assertThat(big.open()).isBetween(0, 50);
    }

    @Test
    void constructor_noRoom_isRefused() {
        assertThatThrownBy(() -> new ConnectionLimit("grpc", 0, Duration.ofSeconds(1), time,
                (transport, reason) -> { })).hasMessageContaining("at least 1");
    }
}
