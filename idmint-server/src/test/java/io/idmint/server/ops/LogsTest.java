package io.idmint.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.harness.Http;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** {@link Logs}' formatters: nothing a caller sends can start a line or move the cursor. */
class LogsTest {

    /** Every character {@link Logs#isControl} holds, and a forged line after a line feed. */
    private static final String HOSTILE = "a\nb\rc\td\u001b[31me\u0085f\u2028g\u2029h\u007f"
            + "\n2026-01-01T00:00:00Z WARN io.idmint.server.events: forged";

    @Test
    void textFormat_controlsInMessageFieldsAndException_areEscapedOnTheirLine() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("path", HOSTILE);
        LogRecord r = record(fields);
        r.setThrown(new IllegalStateException(HOSTILE, new RuntimeException(HOSTILE)));

        String text = new Logs.TextFormat().format(r);

        String[] lines = text.split("\n", -1);
        assertThat(lines[lines.length - 1]).isEmpty();
        assertThat(lines[0]).matches("\\S+Z INFO test: request path=.*")
                .contains("a\\nb\\rc\\td\\u001b[31me\\u0085f\\u2028g\\u2029h\\u007f\\n2026");
        for (int i = 1; i < lines.length - 1; i++) {
            assertThat(lines[i]).as("a stack trace line").startsWith("\t");
        }
        assertThat(text).contains("\tjava.lang.IllegalStateException: a\\nb")
                .contains("\tCaused by: java.lang.RuntimeException: a\\nb")
                .contains("\tat io.idmint.server.ops.LogsTest.");
        assertThat(text.chars().filter(c -> c != '\n' && c != '\t'
                && Logs.isControl((char) c))).isEmpty();
    }

    @Test
    void textFormat_plainMessage_isEscapedToo() {
        LogRecord r = new LogRecord(Level.WARNING, HOSTILE);
        r.setLoggerName("test");

        assertThat(new Logs.TextFormat().format(r).split("\n")).hasSize(1);
    }

    @Test
    void jsonFormat_c1AndLineSeparators_areEscaped() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("path", HOSTILE);
        LogRecord r = record(fields);
        r.setThrown(new IllegalStateException(HOSTILE));

        String json = new Logs.JsonFormat().format(r);

        assertThat(json.split("\n")).hasSize(1);
        assertThat(json).contains("\\u0085").contains("\\u2028").contains("\\u2029")
                .contains("\\u001b").contains("\\u007f");
        assertThat(json.chars().filter(c -> c != '\n' && Logs.isControl((char) c))).isEmpty();
        assertThat(Http.object(json).get("path")).isEqualTo(HOSTILE);
    }

    private static LogRecord record(Map<String, Object> fields) {
        LogRecord r = new LogRecord(Level.INFO, "request");
        r.setLoggerName("test");
        r.setParameters(new Object[] {fields});
        return r;
    }
}
