package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceStackTest {

    private final List<String> closed = new ArrayList<>();

    @Test
    void close_closesInReverseOrderOfOpening() {
        ResourceStack stack = new ResourceStack();
        stack.push(() -> closed.add("metrics"));
        stack.push(() -> closed.add("generator"));
        stack.push(() -> closed.add("listener"));

        stack.close();
        stack.close();

        assertThat(closed).containsExactly("listener", "generator", "metrics");
    }

    @Test
    void push_null_isSkipped() {
        ResourceStack stack = new ResourceStack();
        AutoCloseable none = null;

        assertThat(stack.push(none)).isNull();
        stack.close();
    }

    @Test
    void close_failing_closesTheRestAndThrowsTheFirstWithTheLaterSuppressed() {
        ResourceStack stack = new ResourceStack();
        stack.push(() -> closed.add("first opened"));
        stack.push(() -> {
            throw new IllegalStateException("second");
        });
        stack.push(() -> {
            throw new java.io.IOException("third");
        });

        assertThatThrownBy(stack::close).isInstanceOf(IllegalStateException.class)
                .hasMessage("closing failed: third")
                .satisfies(e -> assertThat(e.getSuppressed()).extracting(Throwable::getMessage)
                        .containsExactly("second"));
        assertThat(closed).containsExactly("first opened");
    }

    @Test
    void closeAfter_keepsTheFailureAndSuppressesWhatClosingThrew() {
        ResourceStack stack = new ResourceStack();
        stack.push(() -> {
            throw new IllegalStateException("close");
        });
        RuntimeException failure = new IllegalArgumentException("start");

        stack.closeAfter(failure);

        assertThat(failure.getSuppressed()).extracting(Throwable::getMessage)
                .containsExactly("close");
    }
}
