package io.idmint.server.cli;

import io.idmint.IdCodec;

/**
 * Writes IDs as ASCII lines straight into a byte buffer, the text {@link IdCodec#format} gives
 * (hex with a {@code 0x} so that {@code idmint decode} reads it back), without a String per ID:
 * {@code idmint next -n 100000000} spends its time here.
 */
enum IdWriter {

    DECIMAL(19) {
        @Override
        int write(long id, byte[] buf, int pos) {
            int end = pos + digits(id);
            int i = end;
            do {
                buf[--i] = (byte) ('0' + id % 10);
                id /= 10;
            } while (id != 0);
            buf[end] = '\n';
            return end + 1;
        }
    },

    /** {@code 0x} and 16 digits: unprefixed, an all-digit hex ID would read back as decimal. */
    HEX(18) {
        @Override
        int write(long id, byte[] buf, int pos) {
            buf[pos] = '0';
            buf[pos + 1] = 'x';
            for (int i = 17; i >= 2; i--) {
                buf[pos + i] = HEX_DIGITS[(int) (id & 15)];
                id >>>= 4;
            }
            buf[pos + 18] = '\n';
            return pos + 19;
        }
    },

    BASE32(13) {
        @Override
        int write(long id, byte[] buf, int pos) {
            for (int i = 12; i >= 0; i--) {
                buf[pos + i] = CROCKFORD[(int) (id & 31)];
                id >>>= 5;
            }
            buf[pos + 13] = '\n';
            return pos + 14;
        }
    };

    private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes();
    private static final byte[] CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".getBytes();

    private final int maxLineLength;

    IdWriter(int maxChars) {
        this.maxLineLength = maxChars + 1;
    }

    /** Bytes one line takes at most, newline included. */
    int maxLineLength() {
        return maxLineLength;
    }

    /** Writes {@code id} (not negative) and a newline at {@code pos}; returns the end. */
    abstract int write(long id, byte[] buf, int pos);

    static IdWriter of(IdCodec codec) {
        return switch (codec) {
            case DECIMAL -> DECIMAL;
            case HEX -> HEX;
            case BASE32 -> BASE32;
        };
    }

    private static int digits(long v) {
        int n = 1;
        for (long p = 10; n < 19 && v >= p; p *= 10) {
            n++;
        }
        return n;
    }
}
