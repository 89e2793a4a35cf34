package io.idmint.server.cli;

import java.io.OutputStream;
import java.util.Map;

/**
 * What one run of the CLI was given besides its arguments; injected so tests run commands
 * in-process without touching the process environment or streams.
 *
 * @param env the environment variables
 * @param stdout the raw standard output, for output too large for a {@link java.io.PrintWriter}
 * @param stderrIsTerminal whether standard error is a terminal (progress is shown only then)
 */
public record Invocation(Map<String, String> env, OutputStream stdout, boolean stderrIsTerminal) {
}
