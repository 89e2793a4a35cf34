package io.idmint.segment;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;

/** When a serial's counter starts again: never, or at each year, month, ISO week or day. */
public enum SerialPeriod {
    NONE(0),
    YEAR(366L * 86_400 + 3_600),
    MONTH(31L * 86_400 + 3_600),
    /** ISO weeks: Monday to Sunday, numbered in their week-based year ({@code 2026-W48}). */
    WEEK(7L * 86_400 + 3_600),
    DAY(86_400 + 3_600);

    /** The longest such period in seconds, a daylight-saving hour included. */
    private final long longestSeconds;

    SerialPeriod(long longestSeconds) {
        this.longestSeconds = longestSeconds;
    }

    /** Its name in a definition: {@code none}, {@code year}, {@code month}, … */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException naming the value and the periods there are */
    public static SerialPeriod parse(String key) {
        for (SerialPeriod p : values()) {
            if (p.key().equals(key)) {
                return p;
            }
        }
        throw new IllegalArgumentException("period '" + key + "' is none of none, year, month, "
                + "week, day");
    }

    long longestSeconds() {
        return longestSeconds;
    }

    /** The first day of the period {@code date} is in (itself for NONE: unused). */
    LocalDate start(LocalDate date) {
        return switch (this) {
            case NONE, DAY -> date;
            case WEEK -> date.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
            case MONTH -> date.withDayOfMonth(1);
            case YEAR -> date.withDayOfYear(1);
        };
    }

    /** The first day of the period after the one starting on {@code start}. */
    LocalDate next(LocalDate start) {
        return switch (this) {
            case NONE -> LocalDate.MAX;
            case DAY -> start.plusDays(1);
            case WEEK -> start.plusWeeks(1);
            case MONTH -> start.plusMonths(1);
            case YEAR -> start.plusYears(1);
        };
    }

    /** The period's label in its tag: {@code 2026}, {@code 2026-11}, {@code 2026-W48}. */
    String label(LocalDate start) {
        return switch (this) {
            case NONE -> "all";
            case DAY -> start.toString();
            case MONTH -> start.toString().substring(0, 7);
            case YEAR -> start.toString().substring(0, 4);
            case WEEK -> String.format(Locale.ROOT, "%04d-W%02d",
                    start.get(IsoFields.WEEK_BASED_YEAR),
                    start.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR));
        };
    }
}
