package io.idmint.spi.support;

/**
 * The text a registry without a store clock keeps for a worker's holder: the holder's name
 * ({@code host/pid}) on the first line, then {@code max-ahead-ms=N}, how far ahead of its clock
 * the holder may raise the worker's HWM ({@link io.idmint.spi.ClaimRequest#maxAheadMillis}),
 * which the fleet clock check of the other nodes reads. A text of one line (written before the
 * second line existed) says no such number: {@link #maxAheadMillis} is then 0.
 */
public final class HolderText {

    private static final String MAX_AHEAD = "max-ahead-ms=";

    private HolderText() {
    }

    /** The text for a holder; line breaks in the name become spaces. */
    public static String of(String holder, long maxAheadMillis) {
        String name = holder.replace('\r', ' ').replace('\n', ' ');
        return maxAheadMillis > 0 ? name + "\n" + MAX_AHEAD + maxAheadMillis : name;
    }

    /** The holder's name in a stored text. */
    public static String name(String text) {
        int nl = text.indexOf('\n');
        return (nl < 0 ? text : text.substring(0, nl)).trim();
    }

    /** The holder's {@code max-ahead-ms} in a stored text, or 0 when it says none it can read. */
    public static long maxAheadMillis(String text) {
        for (String line : text.split("\n")) {
            String l = line.trim();
            if (l.startsWith(MAX_AHEAD)) {
                try {
                    return Math.max(0, Long.parseLong(l.substring(MAX_AHEAD.length())));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }
}
