package io.idmint.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link InternalErrors}: an incident id per failure, and a log a flood cannot fill. */
class InternalErrorsTest {

    private final ManualTimeSource time = new ManualTimeSource(0);
    private final InternalErrors errors = new InternalErrors(time);
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Logger logger = Logger.getLogger(InternalErrors.class.getName());
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r);
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
        logger.addHandler(handler);
    }

    @AfterEach
    void stopListening() {
        logger.removeHandler(handler);
    }

    @Test
    void report_namesTheIncidentNotTheException() {
        String detail = errors.report(new NullPointerException("secret"), "GET /v1/id");

        assertThat(detail).isEqualTo("internal error; the server logged it with id 1");
        assertThat(logged).hasSize(1);
        assertThat(logged.get(0).getMessage()).startsWith("internal error 1 answering GET /v1/id");
        assertThat(logged.get(0).getThrown()).hasMessage("secret");
    }

    @Test
    void report_flood_oneTraceThenOneLineASecond() {
        for (int i = 0; i < 10_000; i++) {
            errors.report(failure(), "GET /v1/id");
        }
        assertThat(logged).as("the first with its trace, the second as a line").hasSize(2);
        assertThat(logged.get(0).getThrown()).isNotNull();
        assertThat(logged.get(1).getThrown()).isNull();
        assertThat(logged.get(1).getMessage()).startsWith("internal error 2 answering GET /v1/id:"
                + " java.lang.NullPointerException at io.idmint.server.api.InternalErrorsTest.");

        time.advance(Duration.ofSeconds(1));
        errors.report(failure(), "GET /v1/id");

        assertThat(logged).hasSize(3);
        assertThat(logged.get(2).getMessage()).startsWith("internal error 10001 answering")
                .endsWith("; 9998 more since the last line, ids from 3, not logged");
    }

    /** Always thrown at the same place, as a bug hit by every request is. */
    private static NullPointerException failure() {
        return new NullPointerException("from a request");
    }
}
