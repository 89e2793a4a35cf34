package io.idmint;

import java.util.Arrays;

/**
 * The runs one batch of a {@link StripedGenerator} took, and what it makes of them. A run is IDs
 * of one stripe and one tick, {@code step} apart; a stripe's runs increase in the order taken.
 * So the batch is a merge of sorted runs: with the sequence as the lowest field (every preset but
 * {@code sonyflake}) the runs do not overlap and are only put in order; otherwise the stripes'
 * sequences are merged. Confined to one thread.
 */
final class StripeRuns {

    private long[] firsts = new long[8];
    private int[] lengths = new int[8];
    private int[] stripeOf = new int[8];
    private int count;

    void clear() {
        count = 0;
    }

    void add(int stripe, long first, int length) {
        if (count == firsts.length) {
            firsts = Arrays.copyOf(firsts, count * 2);
            lengths = Arrays.copyOf(lengths, count * 2);
            stripeOf = Arrays.copyOf(stripeOf, count * 2);
        }
        firsts[count] = first;
        lengths[count] = length;
        stripeOf[count] = stripe;
        count++;
    }

    /** How many IDs the runs hold. */
    int total() {
        int total = 0;
        for (int i = 0; i < count; i++) {
            total += lengths[i];
        }
        return total;
    }

    /** The stripe whose run ends with the largest ID. */
    int stripeOfLargest(long step) {
        int top = 0;
        for (int r = 1; r < count; r++) {
            if (lastOf(r, step) > lastOf(top, step)) {
                top = r;
            }
        }
        return stripeOf[top];
    }

    /**
     * Writes every run into {@code ids[from..)}, ascending, for runs of up to {@code k} stripes.
     */
    void merge(long[] ids, int from, long step, int k) {
        Integer[] byFirst = new Integer[count];
        for (int i = 0; i < count; i++) {
            byFirst[i] = i;
        }
        Arrays.sort(byFirst, (a, b) -> Long.compare(firsts[a], firsts[b]));
        boolean apart = true;
        for (int i = 1; i < count && apart; i++) {
            apart = firsts[byFirst[i]] > lastOf(byFirst[i - 1], step);
        }
        if (apart) {
            int at = from;
            for (int i : byFirst) {
                fill(ids, at, firsts[i], lengths[i], step);
                at += lengths[i];
            }
            return;
        }
        // One cursor per stripe, over its runs in the order taken: a k-way merge.
        int[][] runsOf = new int[k][];
        int[] n = new int[k];
        for (int i = 0; i < count; i++) {
            n[stripeOf[i]]++;
        }
        for (int s = 0; s < k; s++) {
            runsOf[s] = new int[n[s]];
            n[s] = 0;
        }
        for (int i = 0; i < count; i++) {
            int s = stripeOf[i];
            runsOf[s][n[s]++] = i;
        }
        int[] run = new int[k];
        int[] offset = new int[k];
        for (int at = from, end = from + total(); at < end; at++) {
            int best = -1;
            long min = Long.MAX_VALUE;
            for (int s = 0; s < k; s++) {
                if (run[s] < runsOf[s].length) {
                    long v = firsts[runsOf[s][run[s]]] + offset[s] * step;
                    if (v < min) {
                        min = v;
                        best = s;
                    }
                }
            }
            ids[at] = min;
            if (++offset[best] == lengths[runsOf[best][run[best]]]) {
                run[best]++;
                offset[best] = 0;
            }
        }
    }

    private long lastOf(int run, long step) {
        return firsts[run] + (lengths[run] - 1) * step;
    }

    /** {@code n} IDs from {@code first}, {@code step} apart, into {@code ids[from..)}. */
    static void fill(long[] ids, int from, long first, int n, long step) {
        for (int i = 0; i < n; i++) {
            ids[from + i] = first + i * step;
        }
    }
}
