package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.server.harness.TestServers;
import io.idmint.server.ops.Logs;
import io.idmint.spi.WorkerRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lease lines of a start that fails: none when settings that do not fit together are
 * refused, as they are before anything is claimed; in order when the worker claim itself fails
 * for good after a worker was taken.
 */
class EventLogIT {

    @TempDir
    Path tmp;

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            lines.add(r.getMessage() + " worker=" + Logs.fields(r).get("worker"));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger events = Logger.getLogger("io.idmint.server.events");

    @BeforeEach
    void listen() {
        events.addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        events.removeHandler(capture);
    }

    /**
     * {@code static.peers} with a shared registry is refused before a worker is claimed (issue
     * 36, item 10): no lease line, and nothing left in the registry. It used to be refused after
     * the claim, leaving the worker's row behind.
     */
    @Test
    void staticPeersWithASharedRegistry_isRefusedBeforeAnyWorkerIsClaimed() throws Exception {
        String registry = "jdbc:h2:mem:events-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

        IllegalArgumentException e = catchThrowableOfType(IllegalArgumentException.class,
                () -> TestServers.start(tmp, "registry=" + registry,
                        "static.peers=127.0.0.1:1"));

        assertThat(e).as("the start should have failed on static.peers").isNotNull();
        assertThat(e.getMessage()).contains("unset static.peers");
        assertThat(lines).as("lease lines").isEmpty();
        try (WorkerRegistry r = WorkerRegistries.open(registry, tmp)) {
            assertThat(r.list("default")).as("workers in the registry").isEmpty();
        }
    }

    /**
     * A claim that fails for good once the server listens (two workers asked for, one free)
     * fails the start with the claim's message, and logs the lease lines of the worker it took
     * and gave back, in order.
     */
    @Test
    void claimFailingForGood_failsTheStart_andLogsTheLeaseLinesInOrder() throws Exception {
        String twoWorkers = "time=41,worker=1,sequence=12";
        try (WorkerRegistry registry = WorkerRegistries.open("static:", tmp);
                IdGenerator holder = Snowflake.newBuilder().layout(Layout.parse(twoWorkers))
                        .registry(registry).build()) {
            assertThat(holder.status().ready()).isTrue();

            IllegalStateException e = catchThrowableOfType(IllegalStateException.class,
                    () -> TestServers.start(tmp, "layout=" + twoWorkers, "workers=2"));

            assertThat(e).as("the start should have failed: one worker of two free").isNotNull();
            assertThat(e.getMessage()).contains("workers 2: only 1 worker IDs of datacenter 0 "
                    + "were free");
        }
        assertThat(lines).map(line -> line.substring(0, line.indexOf(" worker=")))
                .containsExactly("worker lease ACQUIRING -> ACTIVE",
                        "worker lease ACTIVE -> RELEASED");
    }
}
