package io.idmint.server.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A tiny JVM for FaketimeClockIT: for every line on stdin it prints its wall clock and its
 * monotonic clock ({@code currentTimeMillis nanoTime}), so a test can watch both under
 * libfaketime.
 */
public final class ClockProbe {

    private ClockProbe() {
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
                StandardCharsets.UTF_8));
        while (in.readLine() != null) {
            System.out.println(System.currentTimeMillis() + " " + System.nanoTime());
            System.out.flush();
        }
    }
}
