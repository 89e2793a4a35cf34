package io.idmint;

import java.util.Arrays;

/**
 * A map from {@code long} to {@code int} by open addressing, for the simulation's oracle: a
 * {@code HashMap<Long, Integer>} spent most of a schedule's time boxing.
 */
final class SimLongMap {

    private static final long EMPTY = Long.MIN_VALUE;

    private long[] keys = new long[1024];
    private int[] values = new int[1024];
    private int size;

    SimLongMap() {
        Arrays.fill(keys, EMPTY);
    }

    /** The value of {@code key}, after storing {@code value} there if it had none. */
    int putIfAbsent(long key, int value) {
        if (key == EMPTY) {
            throw new IllegalArgumentException("key " + key + " is reserved");
        }
        int mask = keys.length - 1;
        int i = (int) (key * 0x9E3779B97F4A7C15L >>> 40) & mask;
        while (keys[i] != EMPTY) {
            if (keys[i] == key) {
                return values[i];
            }
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
        if (++size * 2 > keys.length) {
            grow();
        }
        return value;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        Arrays.fill(keys, EMPTY);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                putIfAbsent(oldKeys[i], oldValues[i]);
            }
        }
    }
}
