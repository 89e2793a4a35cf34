package io.idmint.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link AccessLog}'s writer thread: what it writes around close and failures. */
class AccessLogTest {

    @TempDir
    Path tmp;

    @Test
    void close_rightAfterARequest_writesTheRequestThenTheClosingLine() throws Exception {
        for (int i = 0; i < 200; i++) {
            Path file = tmp.resolve("access-" + i + ".log");
            AccessLog log = AccessLog.open(file.toString(), new SimpleFormatter());
            log.request("GET", "/id", 200, 1_000, null, "-");
            log.close();

            String text = Files.readString(file);
            assertThat(text).as("run " + i).contains("request")
                    .contains("access log closed; 0 lines dropped on a full queue, 0 failed");
        }
    }

    @Test
    void write_handlerThrows_skipsThatLineAndGoesOn() throws Exception {
        List<String> written = new CopyOnWriteArrayList<>();
        Handler flaky = new Handler() {
            private boolean failedOnce;

            @Override
            public synchronized void publish(LogRecord r) {
                if (!failedOnce) {
                    failedOnce = true;
                    throw new IllegalStateException("disk full");
                }
                written.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger("io.idmint.server.access");
        logger.addHandler(flaky);
        boolean parents = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false);
        try {
            AccessLog log = AccessLog.open("on", new SimpleFormatter());
            log.request("GET", "/id", 200, 1_000, null, "-");
            log.request("GET", "/ids", 200, 1_000, "5", "-");
            log.close();

            assertThat(written).containsExactly("request",
                    "access log closed; 0 lines dropped on a full queue, 1 failed to write");
        } finally {
            logger.removeHandler(flaky);
            logger.setUseParentHandlers(parents);
        }
    }
}
