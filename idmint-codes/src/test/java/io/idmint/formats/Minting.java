package io.idmint.formats;

import io.idmint.testkit.IdOracle;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@link io.idmint.testkit.IdOracle#mintConcurrently} for IDs wider than a {@code long}: threads
 * start together on one generator; each thread's IDs must be strictly increasing in their
 * natural order, and all of them distinct.
 */
final class Minting {

    private Minting() {
    }

    static <T extends Comparable<T>> List<List<T>> concurrently(FormatGenerator<T> generator,
            int threads, int perThread) throws InterruptedException {
        List<List<T>> out = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            out.add(new ArrayList<>(perThread));
        }
        IdOracle.together(threads, t -> {
            for (int i = 0; i < perThread; i++) {
                out.get(t).add(generator.next());
            }
        });
        Set<T> all = new HashSet<>();
        for (List<T> ids : out) {
            assertStrictlyIncreasing(ids);
            for (T id : ids) {
                if (!all.add(id)) {
                    throw new AssertionError("duplicate " + id);
                }
            }
        }
        return out;
    }

    static <T extends Comparable<T>> void assertStrictlyIncreasing(List<T> ids) {
        for (int i = 1; i < ids.size(); i++) {
            if (ids.get(i).compareTo(ids.get(i - 1)) <= 0) {
                throw new AssertionError("#" + i + " " + ids.get(i) + " is not above the one "
                        + "before it, " + ids.get(i - 1));
            }
        }
    }
}
