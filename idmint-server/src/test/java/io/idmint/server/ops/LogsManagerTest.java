package io.idmint.server.ops;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The root level of commands other than {@code serve}: read by {@link Logs.Manager} when
 * something first logs, rather than set at start (docs/observability.md, "Start-up").
 */
class LogsManagerTest {

    @AfterEach
    void clear() {
        System.clearProperty(Logs.Manager.QUIET);
    }

    @Test
    void quiet_rootLevelIsWarning() throws Exception {
        System.setProperty(Logs.Manager.QUIET, "true");
        Logs.Manager manager = new Logs.Manager();
        manager.readConfiguration();

        assertThat(manager.getProperty(".level")).isEqualTo("WARNING");
        assertThat(manager.getProperty("handlers")).isEqualTo("java.util.logging.ConsoleHandler");
        assertThat(manager.getProperty("io.etcd.level")).as("jetcd's per-attempt warnings")
                .isEqualTo("SEVERE");
        assertThat(manager.getProperty("java.util.logging.ConsoleHandler.formatter"))
                .isEqualTo(Logs.TextFormat.class.getName());
    }

    @Test
    void notQuiet_rootLevelIsTheConfigurations() throws Exception {
        Logs.Manager manager = new Logs.Manager();
        manager.readConfiguration();

        assertThat(manager.getProperty(".level")).as("the JDK's logging.properties")
                .isEqualTo("INFO");
        assertThat(manager.getProperty("io.etcd.level")).isNull();
    }
}
