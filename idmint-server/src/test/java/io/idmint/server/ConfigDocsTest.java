package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.cli.ConfigCommand;
import io.idmint.server.config.Config;
import io.idmint.server.harness.Cli;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md holds the table of keys exactly as {@code idmint config --markdown}
 * prints it: a key added, renamed or redescribed fails this until the page is regenerated.
 */
class ConfigDocsTest {

    /** The page, from this module's directory (where Maven runs the tests). */
    private static final Path PAGE = Path.of("..", "docs", "configuration.md");

    @Test
    void configurationPage_tableBetweenTheMarkers_isTheGeneratedOne() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        int start = page.indexOf(ConfigCommand.TABLE_START);
        int end = page.indexOf(ConfigCommand.TABLE_END);
        assertThat(start).as("marker " + ConfigCommand.TABLE_START + " in " + PAGE)
                .isNotNegative();
        assertThat(end).as("marker " + ConfigCommand.TABLE_END + " in " + PAGE)
                .isGreaterThan(start);

        String table = page.substring(start, end + ConfigCommand.TABLE_END.length()) + "\n";

        assertThat(table).as("regenerate with: idmint config --markdown")
                .isEqualTo(ConfigCommand.markdown());
    }

    @Test
    void markdownCommand_printsTheTable_withEveryKey() {
        Cli.Result r = Cli.run("config", "--markdown");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).isEqualTo(ConfigCommand.markdown());
        for (Config.Key<?> key : Config.keys()) {
            assertThat(r.out()).contains("| `" + key.name() + "` | `" + key.flag() + " ")
                    .contains(key.envVar());
        }
    }
}
