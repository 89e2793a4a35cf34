package io.idmint.server.cli;

/**
 * The exit codes of every command: 0 success, 1 runtime failure, 2 bad usage or input.
 */
public final class ExitCode {

    public static final int OK = 0;
    public static final int FAILURE = 1;
    public static final int USAGE = 2;

    private ExitCode() {
    }
}
