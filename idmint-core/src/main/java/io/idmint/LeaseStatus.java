package io.idmint;

import io.idmint.IdUnavailableException.Reason;

/**
 * What an {@link HwmLease} reports of itself: its {@link LeaseState}, the sentence that explains
 * it, and why no ID can be issued. The lease changes it only under its lock; it is read from any
 * thread (the generator's status, the maintenance loop). A change of state through
 * {@link #set} is passed to the listener.
 */
final class LeaseStatus {

    private final GeneratorListener listener;
    private volatile LeaseState state = LeaseState.ACQUIRING;
    private volatile String detail = "acquiring a worker ID";
    /** Why no ID can be issued, or null while the lease issues. */
    private volatile Reason reason = Reason.NO_LEASE;

    LeaseStatus(GeneratorListener listener) {
        this.listener = listener;
    }

    LeaseState state() {
        return state;
    }

    String detail() {
        return detail;
    }

    Reason reason() {
        return reason;
    }

    /** Replaces the sentence only; the state and the reason stay. */
    void detail(String sentence) {
        detail = sentence;
    }

    /**
     * Marks the lease {@link LeaseState#RELEASED} without telling the listener, the sentence and
     * the reason left as they are: for a first acquisition that fails the build.
     */
    void releasedQuietly() {
        state = LeaseState.RELEASED;
    }

    /**
     * Sets the state and its sentence; the reason is {@link Reason#NO_LEASE} unless the state is
     * one that issues ({@link LeaseState#ACTIVE}, {@link LeaseState#DEGRADED}).
     */
    void set(LeaseState next, String why) {
        set(next, next == LeaseState.ACTIVE || next == LeaseState.DEGRADED ? null
                : Reason.NO_LEASE, why);
    }

    /** Sets the state, the reason (null while the lease issues) and the sentence. */
    void set(LeaseState next, Reason why, String sentence) {
        LeaseState prev = state;
        reason = why;
        detail = sentence;
        if (prev != next) {
            state = next;
            listener.onStateChange(prev, next, sentence);
        }
    }
}
