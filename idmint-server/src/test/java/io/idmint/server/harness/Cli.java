package io.idmint.server.harness;

import io.idmint.server.Main;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** Runs the CLI in-process with captured streams and an injected environment. */
public final class Cli {

    public record Result(int exitCode, String out, String err) {
        public List<String> lines() {
            return out.isEmpty() ? List.of() : Arrays.asList(out.split("\n"));
        }
    }

    private Cli() {
    }

    public static Result run(String... args) {
        return run(Map.of(), false, args);
    }

    public static Result run(Map<String, String> env, String... args) {
        return run(env, false, args);
    }

    public static Result run(Map<String, String> env, boolean stderrIsTerminal, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, env, out, err, stderrIsTerminal);
        return new Result(code, out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8));
    }
}
