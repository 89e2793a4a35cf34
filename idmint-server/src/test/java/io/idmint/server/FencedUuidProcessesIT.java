package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.FencedUuidV7;
import io.idmint.Layout;
import io.idmint.server.harness.ChildProcess;
import io.idmint.server.harness.IdmintProcesses;
import io.idmint.server.harness.NodeTools;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.fixture.EtcdServer;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fenced UUIDv7s from real processes on one real registry (issue 33): eight {@code idmint next
 * --kind fenced-uuid7} processes at once on one etcd, 1,250,000 UUIDs each: no UUID twice, each
 * process's increasing (as 128-bit numbers, and so the IDs they carry), and a sample
 * of each accepted as version 7 by two parsers of other stacks (npm's {@code uuid} and Python's
 * {@code uuid} module).
 */
class FencedUuidProcessesIT {

    private static final int PROCESSES = 8;
    private static final int EACH = 1_250_000;
    /** UUIDs of each process handed to the other parsers: its first and last ones. */
    private static final int SAMPLE = 25_000;

    @RegisterExtension
    static final EtcdServer etcd = EtcdServer.shared();

    @TempDir
    Path tmp;

    @Test
    void eightProcesses_tenMillionFencedUuids_noDuplicate_eachIncreasing_validV7Elsewhere()
            throws Exception {
        try (IdmintProcesses procs = new IdmintProcesses(tmp)) {
            List<Process> ps = new ArrayList<>();
            for (int i = 0; i < PROCESSES; i++) {
                // A 5 s call timeout: eight JVMs starting at once on a small machine can make an
                // etcd call slow (RegistryFaultIT's eight claims do the same).
                ps.add(procs.start("next" + i, Map.of(), "next", "-n", Integer.toString(EACH),
                        "--kind", "fenced-uuid7", "--registry", etcd.uri("5s"),
                        "--lease-store-timeout", "10s", "--data-dir", "data" + i));
            }
            for (int i = 0; i < PROCESSES; i++) {
                assertThat(ps.get(i).waitFor(180, TimeUnit.SECONDS)).as("next%d exited", i)
                        .isTrue();
                assertThat(ps.get(i).exitValue()).as("next%d: %s", i, procs.stderrOf("next" + i))
                        .isZero();
            }
            long[] all = new long[PROCESSES * EACH];
            Set<Integer> workers = new HashSet<>();
            Path sample = tmp.resolve("sample.txt");
            try (var out = Files.newBufferedWriter(sample)) {
                for (int i = 0; i < PROCESSES; i++) {
                    workers.addAll(read(procs.stdoutFile("next" + i), all, i * EACH, out));
                }
            }
            System.out.printf("[fenced uuids] %d UUIDs from %d processes on workers %s%n",
                    all.length, PROCESSES, workers);
            Arrays.sort(all);
            for (int i = 1; i < all.length; i++) {
                if (all[i] == all[i - 1]) {
                    throw new AssertionError("two fenced UUIDs carry ID " + all[i] + " ("
                            + Layout.SNOWFLAKE.decode(all[i]) + ")");
                }
            }

            String npm = NodeTools.run("uuid-check.mjs", sample.toAbsolutePath().toString());
            assertThat(npm.strip()).isEqualTo(Integer.toString(PROCESSES * SAMPLE * 2));
            ChildProcess.Result python = ChildProcess.run(new ProcessBuilder("/usr/bin/python3",
                    "-c", PYTHON_CHECK, sample.toAbsolutePath().toString()),
                    Duration.ofSeconds(120));
            assertThat(python.exitCode()).as(python.output()).isZero();
            assertThat(python.stdout().strip()).isEqualTo(Integer.toString(PROCESSES * SAMPLE * 2));
        }
    }

    /** Python's own parser: each line a UUID of version 7 and the RFC's variant. */
    private static final String PYTHON_CHECK = String.join("\n",
            "import sys, uuid",
            "n = 0",
            "for line in open(sys.argv[1]):",
            "    u = uuid.UUID(line.strip())",
            "    if u.version != 7 or u.variant != uuid.RFC_4122:",
            "        sys.exit('python uuid: %s is version %s, variant %s' % (u, u.version, "
                    + "u.variant))",
            "    n += 1",
            "print(n)");

    /**
     * Reads one process's UUIDs into {@code ids[from..from+EACH)} as the IDs they carry,
     * checking that they increase, and writes its sample.
     *
     * @return the workers of its IDs
     */
    private static Set<Integer> read(Path file, long[] ids, int from, java.io.Writer sample)
            throws Exception {
        int n = 0;
        UUID last = null;
        Set<Integer> workers = new HashSet<>();
        try (BufferedReader in = Files.newBufferedReader(file)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                UUID u = UUID.fromString(line);
                if (last != null && IdOracle.compareUnsigned(u, last) <= 0) {
                    throw new AssertionError(file + ": " + u + " after " + last);
                }
                long id = FencedUuidV7.idOf(u, Layout.SNOWFLAKE);
                workers.add(Layout.SNOWFLAKE.decode(id).workerId());
                ids[from + n] = id;
                if (n < SAMPLE || n >= EACH - SAMPLE) {
                    sample.write(line);
                    sample.write('\n');
                }
                n++;
                last = u;
            }
        }
        assertThat(n).as(file.toString()).isEqualTo(EACH);
        return workers;
    }

}
