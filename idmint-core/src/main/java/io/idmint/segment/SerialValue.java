package io.idmint.segment;

import java.time.LocalDate;

/**
 * One value of a serial: its counter, the first day of its period (for period {@code none}, the
 * day it was taken), and its text as the template writes it.
 */
public record SerialValue(long counter, LocalDate period, String text) {
}
