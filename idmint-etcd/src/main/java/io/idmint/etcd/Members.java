package io.idmint.etcd;

/**
 * Which etcd member the next attempt of a call goes to. Calls stick to the member that answered
 * last, the first one listed at start. After a failed attempt the next member in the list is
 * tried, skipping members that <em>hung</em> (let an attempt run out of time without answering:
 * frozen, cut off, or waiting for a leader that is gone) within the last {@code holdNanos};
 * when every member hung that recently, the one that hung longest ago. A member that failed at
 * once (connection refused, "no leader") is not skipped: it is alive, and may serve once a
 * leader is elected.
 */
final class Members {

    private final int size;
    private final long holdNanos;
    private final boolean[] hung;
    private final long[] hungAtNanos;
    private int current;

    Members(int size, long holdNanos) {
        if (size < 1) {
            throw new IllegalArgumentException("no etcd member");
        }
        this.size = size;
        this.holdNanos = holdNanos;
        this.hung = new boolean[size];
        this.hungAtNanos = new long[size];
    }

    /** The member the next attempt goes to. */
    synchronized int current() {
        return current;
    }

    /** An attempt on {@code member} was answered: calls stay with it. */
    synchronized void answered(int member) {
        hung[member] = false;
        current = member;
    }

    /**
     * An attempt on {@code member} failed at {@code nowNanos} ({@link System#nanoTime()}), by
     * running out of time ({@code hungUp}) or at once. Returns the member to try next.
     */
    synchronized int failed(int member, boolean hungUp, long nowNanos) {
        if (hungUp) {
            hung[member] = true;
            hungAtNanos[member] = nowNanos;
        }
        if (member != current) {
            return current; // a concurrent call moved on already
        }
        int longestAgo = -1;
        for (int k = 1; k <= size; k++) {
            int m = (member + k) % size;
            if (!hung[m] || nowNanos - hungAtNanos[m] > holdNanos) {
                current = m;
                return m;
            }
            if (longestAgo < 0 || hungAtNanos[m] - hungAtNanos[longestAgo] < 0) {
                longestAgo = m;
            }
        }
        current = longestAgo;
        return longestAgo;
    }
}
