package io.idmint.segment;

/**
 * What one node did with a serial: values issued, values dropped (the rest of a range whose
 * period ended, never issued), ranges taken from the store, and values held for the current
 * period's counter ({@code tag}, null before the first value).
 */
public record SerialStats(String serial, String tag, long issued, long dropped, long ranges,
        long buffered) {
}
