package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.idmint.server.ops.Logs;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lease lines of a start that fails after the worker was taken, before the server runs. */
class EventLogIT {

    @TempDir
    Path tmp;

    @Test
    void start_failsAfterTheLease_logsTheLeaseLinesInOrder() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
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
        Logger events = Logger.getLogger("io.idmint.server.events");
        events.addHandler(capture);
        try {
            // A setting checked once the worker is leased, before the server is built.
            IllegalArgumentException e = catchThrowableOfType(IllegalArgumentException.class,
                    () -> TestServers.start(tmp, "registry=jdbc:h2:mem:events",
                            "static.peers=127.0.0.1:1"));

            assertThat(e).as("the start should have failed on static.peers").isNotNull();
            assertThat(e.getMessage()).contains("unset static.peers");
        } finally {
            events.removeHandler(capture);
        }
        assertThat(lines).containsExactly("worker lease ACQUIRING -> ACTIVE worker=0",
                "worker lease ACTIVE -> RELEASED worker=0");
    }
}
