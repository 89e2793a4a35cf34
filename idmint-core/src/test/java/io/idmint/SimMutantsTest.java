package io.idmint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the {@link Simulation} can fail: each test plants a known bug in the real
 * {@code HwmLease.java} as a textual mutant, compiles it, loads it with every {@code io.idmint}
 * class in a class loader of its own, and asserts that the simulator finds a violation within a
 * bounded number of schedules. The unmutated source goes through the same path as the control.
 * Every snippet a mutant patches must occur as often as it says, so a refactor of
 * {@code HwmLease} breaks this test loudly instead of leaving a mutant that no longer mutates.
 */
class SimMutantsTest {

    /** The mutants' schedules start here, so the counts below are the same on every run. */
    private static final long FIRST_SEED = 1;
    /** A mutant must be caught within this many schedules (docs/testing.md has the counts). */
    private static final int BUDGET = 20_000;
    private static final int CONTROL_SCHEDULES = 5_000;

    private static final String EXTEND_LIMIT = "issuer.extendLimit(layout.tickOf(limit(from)));";

    /** A textual change: {@code original} must occur exactly {@code times} times. */
    record Edit(String original, String replacement, int times) {
    }

    @TempDir
    Path tmp;

    @Test
    void mutant_issueAboveAcknowledgedReservation_isCaught() throws Exception {
        // Raise the issuance limit before the reservation is acknowledged.
        assertCaught("limit raised before the acknowledgement", List.of(
                new Edit(EXTEND_LIMIT, "", 1),
                new Edit("claim = claim.withToken(registry.extend(claim, until));",
                        EXTEND_LIMIT + " claim = claim.withToken(registry.extend(claim, until));",
                        1)));
    }

    @Test
    void mutant_leaseDeadlineFromAcknowledgement_isCaught() throws Exception {
        // In reserve() and in extend(): the deadline starts when the answer came, not the send.
        assertCaught("deadline from the acknowledgement", List.of(
                new Edit("lastAckNanos = sendNanos;", "lastAckNanos = time.nanoTime();", 2)));
    }

    @Test
    void mutant_limitReusedAfterUnknownOutcome_isCaught() throws Exception {
        // In extend()'s catch branch, on UNAVAILABLE: raise the limit as if the reservation had
        // been acknowledged.
        String silent = "long silentMillis = (time.nanoTime() - lastAckNanos) / 1_000_000;";
        assertCaught("limit raised after an unknown outcome", List.of(
                new Edit(silent, EXTEND_LIMIT + " " + silent, 1)));
    }

    @Test
    void control_unmutatedSourceThroughTheSamePath_findsNoViolation() throws Exception {
        String v = simulate(List.of(), FIRST_SEED, CONTROL_SCHEDULES);
        assertThat(v).as("the unmutated HwmLease in its own class loader").isNull();
    }

    private void assertCaught(String name, List<Edit> edits) throws Exception {
        String v = simulate(edits, FIRST_SEED, BUDGET);
        assertThat(v).as("mutant '%s' must be caught within %d schedules", name, BUDGET)
                .isNotNull();
        long seed = Long.parseLong(v.substring("seed ".length(), v.indexOf(':')));
        assertThat(simulate(edits, seed, 1)).as("the failing seed replayed").isEqualTo(v);
        // The replay command runs the unmutated code, so it is left out.
        System.out.println("mutant '" + name + "' caught after " + (seed - FIRST_SEED + 1)
                + " schedules: " + v.substring(0, v.indexOf("\nreplay: ")));
    }

    /** Compiles HwmLease.java with {@code edits} and runs the simulator on it in a new loader. */
    private String simulate(List<Edit> edits, long firstSeed, int count) throws Exception {
        Path source = Path.of("src/main/java/io/idmint/HwmLease.java");
        String text = Files.readString(source);
        for (Edit e : edits) {
            assertThat(occurrences(text, e.original())).as("occurrences in %s of: %s", source,
                    e.original()).isEqualTo(e.times());
            text = text.replace(e.original(), e.replacement());
        }
        Path classes = location(HwmLease.class);
        Path mutant = compile(text, classes);
        URL[] path = {mutant.toUri().toURL(), classes.toUri().toURL(),
            location(Simulation.class).toUri().toURL()};
        try (ChildFirstLoader loader = new ChildFirstLoader(path, getClass().getClassLoader())) {
            Class<?> lease = loader.loadClass(HwmLease.class.getName());
            assertThat(location(lease)).as("HwmLease comes from the mutant").isEqualTo(mutant);
            Class<?> sim = loader.loadClass(Simulation.class.getName());
            assertThat(sim).isNotSameAs(Simulation.class);
            Method run = sim.getDeclaredMethod("explore", long.class, int.class);
            run.setAccessible(true);
            try {
                return (String) run.invoke(null, firstSeed, count);
            } catch (InvocationTargetException e) {
                throw new AssertionError("the simulator threw", e.getCause());
            }
        }
    }

    private Path compile(String text, Path classpath) throws IOException {
        Path src = Files.createDirectories(tmp.resolve("src/io/idmint")).resolve("HwmLease.java");
        Files.writeString(src, text);
        Path out = Files.createDirectories(tmp.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter log = new StringWriter();
        boolean ok = javac.getTask(log, null, null, List.of("-d", out.toString(), "-classpath",
                classpath.toString(), "-proc:none", "--release", "17"), null,
                javac.getStandardFileManager(null, null, null).getJavaFileObjects(src)).call();
        assertThat(ok).as("the mutant compiles: %s", log).isTrue();
        return out;
    }

    private static Path location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static int occurrences(String text, String snippet) {
        int n = 0;
        for (int i = text.indexOf(snippet); i >= 0; i = text.indexOf(snippet, i + 1)) {
            n++;
        }
        return n;
    }

    /**
     * Loads every {@code io.idmint} class itself, from its own path only (mutant first), so the
     * mutant and the simulator share one runtime package; everything else comes from the parent.
     */
    static final class ChildFirstLoader extends URLClassLoader {

        ChildFirstLoader(URL[] path, ClassLoader parent) {
            super(path, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith("io.idmint.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }
}
