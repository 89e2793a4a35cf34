package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.server.cli.Invocation;
import io.idmint.server.harness.Cli;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The frame every command shares: version, help, usage errors and their exit codes. */
class CliFrameTest {

    private static final String[] COMMANDS =
            {"next", "decode", "layout", "serve", "registry", "segment", "serial", "config",
                "sql", "migrate", "health"};

    @Test
    void version_onEveryCommand_printsTheVersion() {
        String root = Cli.run("-V").out();
        assertThat(root).startsWith("idmint ");

        for (String command : COMMANDS) {
            Cli.Result r = Cli.run(command, "-V");

            assertThat(r.exitCode()).as(command).isZero();
            assertThat(r.out()).as(command).isEqualTo(root);
        }
    }

    @Test
    void help_listsEveryCommandIncludingConfig() {
        String help = Cli.run("--help").out();

        for (String command : COMMANDS) {
            assertThat(help).as(command).containsPattern("(?m)^\\s+" + command + "\\s");
        }
    }

    @Test
    void missingCommand_namesEveryCommand() {
        Cli.Result r = Cli.run();

        assertThat(r.exitCode()).isEqualTo(2);
        for (String command : COMMANDS) {
            assertThat(r.err()).as(command).contains(command);
        }
    }

    @Test
    void unknownCommand_withHelp_exits2NamingIt() {
        Cli.Result r = Cli.run("frobnicate", "install", "--help");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).startsWith("idmint: unknown command 'frobnicate'; the commands are ")
                .contains("serve");
        assertThat(r.out()).doesNotContain("Usage:");
        assertThat(Cli.run("frobnicate", "install").err())
                .startsWith("idmint: unknown command 'frobnicate'");
    }

    @Test
    void codesKeyFile_thatDoesNotExist_exits2NamingIt() {
        Cli.Result r = Cli.run("decode", "--codes-key-file", "/nonexistent", "1");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("codes.key-file '/nonexistent'").contains("no such file");
    }

    @Test
    void misspelledEnvironmentVariable_isWarnedAboutNamingTheNearestKey() {
        Cli.Result r = Cli.run(Map.of("IDMINT_HTTP_PROT", "8081", "IDMINT_NAMESPACE", "x"),
                "layout");

        assertThat(r.exitCode()).isZero();
        assertThat(r.err()).contains("IDMINT_HTTP_PROT").contains("IDMINT_HTTP_PORT")
                .doesNotContain("IDMINT_NAMESPACE");
    }

    @Test
    void commandLine_oneCommandNamed_buildsOnlyThatOne() {
        Invocation inv = new Invocation(Map.of(), new java.io.ByteArrayOutputStream(), false);

        // help (picocli's help command, read from annotations) only when no command is named.
        assertThat(Main.commandLine(inv, "next").getSubcommands()).containsOnlyKeys("next");
        assertThat(Main.commandLine(inv, "segment").getSubcommands()).containsOnlyKeys("segment");
        assertThat(Main.commandLine(inv, "nexxt").getSubcommands()).containsOnlyKeys("help",
                "next", "decode", "layout", "range", "serve", "registry", "segment", "serial",
                "sql", "migrate", "config", "health");
        assertThat(Main.commandLine(inv, "--help").getSubcommands()).hasSize(13);
    }
}
