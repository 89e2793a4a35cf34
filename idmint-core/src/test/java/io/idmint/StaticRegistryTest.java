package io.idmint;

import static io.idmint.Nodes.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdUnavailableException.Reason;
import io.idmint.spi.Claim;
import io.idmint.spi.RegistryException;
import io.idmint.spi.WorkerRecord;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.ManualTimeSource;
import io.idmint.testkit.WorkerRegistryContract;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StaticRegistryTest extends WorkerRegistryContract {

    @TempDir
    Path dataDir;

    @Override
    protected WorkerRegistry newClient() {
        return WorkerRegistries.local(dataDir);
    }

    private Path stateFile(int worker) {
        return dataDir.resolve("workers").resolve(namespace).resolve("worker-1-" + worker
                + ".state");
    }

    @Test
    void stateFile_isReadableTextWithChecksum() throws Exception {
        WorkerRegistry r = connect();
        Claim c = r.claim(request(3, 2));
        r.extend(c, 123_456);
        String text = Files.readString(stateFile(2));
        assertThat(text).contains("hwm=123456").contains("generation=1").contains("worker=2")
                .containsPattern("crc32=[0-9a-f]{8}");
        assertThat(dataDir.resolve("workers").resolve(namespace))
                .isDirectoryNotContaining("glob:**.tmp");
        // Written through an owner-only temporary file (docs/registries.md): HWMs are no secret,
        // but nobody else has any business rewriting them.
        assertThat(Files.getPosixFilePermissions(stateFile(2)))
                .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void corruptStateFile_isAClearError_neverAGuess() throws Exception {
        WorkerRegistry r = connect();
        Claim c = r.claim(request(0, 0));
        r.extend(c, 5_000);
        r.close();
        Path f = stateFile(0);
        Files.writeString(f, Files.readString(f).replace("hwm=5000", "hwm=4000"));
        assertThatThrownBy(() -> connect().claim(request(0, 0)))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("is corrupt (checksum does not match)")
                .extracting(e -> ((RegistryException) e).kind())
                        .isEqualTo(RegistryException.Kind.CORRUPT);
        Files.writeString(f, "garbage", StandardCharsets.UTF_8);
        assertThatThrownBy(() -> connect().claim(request(0, 0))).hasMessageContaining("corrupt");
    }

    @Test
    void missingStateFileOfAUsedWorker_isAClearError() throws Exception {
        WorkerRegistry r = connect();
        Claim c = r.claim(request(0, 0));
        r.extend(c, 5_000);
        r.close();
        Files.delete(stateFile(0));
        assertThatThrownBy(() -> connect().claim(request(0, 0)))
                .hasMessageContaining("is missing, but worker 0 was used before");
    }

    @Test
    void restartWithTheClockSetBackAnHour_startsAboveTheHwm() {
        ManualTimeSource clock = new ManualTimeSource(T0).autoAdvance();
        long last;
        try (WorkerRegistry r = connect();
                IdGenerator g = Nodes.manual(r, clock, b -> b.namespace(namespace).datacenterId(1)
                        .preferredWorkerId(0))) {
            last = g.nextId();
        }
        clock.step(Duration.ofHours(-1));
        // clock.policy=fail: refuses to issue until the clock passes the HWM
        try (WorkerRegistry r = connect();
                IdGenerator g = Nodes.manual(r, clock, b -> b.namespace(namespace).datacenterId(1)
                        .preferredWorkerId(0))) {
            assertThat(g.status().state()).isEqualTo(LeaseState.ACQUIRING);
            assertThatThrownBy(g::nextId).isInstanceOf(IdUnavailableException.class)
                    .extracting(e -> ((IdUnavailableException) e).reason())
                            .isEqualTo(Reason.NO_LEASE);
        }
        // clock.policy=continue: issues above the HWM at once
        try (WorkerRegistry r = connect();
                IdGenerator g = Nodes.manual(r, clock, b -> b.namespace(namespace).datacenterId(1)
                        .preferredWorkerId(0).clockPolicy(ClockPolicy.CONTINUE))) {
            long next = g.nextId();
            assertThat(next).isGreaterThan(last);
            assertThat(Layout.SNOWFLAKE.decode(next).timestampMillis())
                    .isGreaterThan(Layout.SNOWFLAKE.decode(last).timestampMillis());
        }
    }

    /**
     * After a crash the worker's HWM is a reservation ahead of the clock; a restart that prefers
     * it takes the coldest free worker instead of waiting the reservation out.
     */
    @Test
    void crashLeavesAReservationAhead_restartTakesAColdWorkerAtOnce() {
        ManualTimeSource clock = new ManualTimeSource(T0).autoAdvance();
        WorkerRegistry crashed = connect();
        IdGenerator g = Nodes.manual(crashed, clock,
                b -> b.namespace(namespace).preferredWorkerId(0));
        long before = g.nextId();
        crashed.close(); // as kill -9 does: the lock goes, the HWM stays a reservation ahead
        try (WorkerRegistry r = connect();
                IdGenerator next = Nodes.manual(r, clock,
                        b -> b.namespace(namespace).preferredWorkerId(0))) {
            assertThat(next.status().state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(next.status().workerId()).isNotZero();
            IdOracle.assertDisjointHolders(Layout.SNOWFLAKE,
                    Map.of("crashed", new long[] {before}, "next", new long[] {next.nextId()}));
        }
    }

    @Test
    void twoGeneratorsOnOneDataDir_getDifferentWorkers() throws Exception {
        try (WorkerRegistry r1 = connect(); WorkerRegistry r2 = connect();
                IdGenerator a = Snowflake.newBuilder().registry(r1).namespace(namespace).build();
                IdGenerator b = Snowflake.newBuilder().registry(r2).namespace(namespace).build()) {
            assertThat(a.status().workerId()).isNotEqualTo(b.status().workerId());
            long[][] ids = {new long[1000], new long[1000]};
            for (int i = 0; i < 1000; i++) {
                ids[0][i] = a.nextId();
                ids[1][i] = b.nextId();
            }
            IdOracle.assertDisjointHolders(Layout.SNOWFLAKE, Map.of("a", ids[0], "b", ids[1]));
        }
    }

    /**
     * Listing the workers (as the fleet clock check does at every claim and every 10 s, and as
     * {@code registry list} does) keeps the OS lock of a worker this process holds (issue 36,
     * item 10): the lock file read with a descriptor of its own dropped the lock, so that
     * {@code idmint next} beside a running server took the server's worker from under it, and
     * {@code registry list} showed that worker free.
     */
    @Test
    void listingTheWorkers_keepsTheOsLockOfAHeldWorker() throws Exception {
        WorkerRegistry r = connect();
        Claim c = r.claim(request(3, 0));
        Path lock = stateFile(0).resolveSibling("worker-1-0.lock");
        assertThat(lockedByThisProcess(lock)).as("locked once claimed").isTrue();

        assertThat(r.list(namespace)).singleElement().extracting(WorkerRecord::holder)
                .isEqualTo("test/3");
        assertThat(r.heldWorkers(namespace)).hasSize(1);
        try (WorkerRegistry other = connect()) {
            assertThat(other.list(namespace)).singleElement().extracting(WorkerRecord::holder)
                    .isEqualTo("test/3");
        }

        assertThat(lockedByThisProcess(lock)).as("still locked after three listings").isTrue();
        r.release(c, 0);
        assertThat(lockedByThisProcess(lock)).as("unlocked once released").isFalse();
        assertThat(r.list(namespace)).singleElement().extracting(WorkerRecord::holder)
                .isEqualTo("");
    }

    /** Whether /proc/locks lists a POSIX lock of this process on {@code file}. */
    private static boolean lockedByThisProcess(Path file) throws IOException {
        long inode = ((Number) Files.getAttribute(file, "unix:ino")).longValue();
        String pid = Long.toString(ProcessHandle.current().pid());
        for (String line : Files.readAllLines(Path.of("/proc/locks"))) {
            // 1: POSIX  ADVISORY  WRITE 9044 fe:00:2214764 0 EOF
            String[] f = line.trim().split("\\s+");
            if (f.length >= 6 && f[1].equals("POSIX") && f[4].equals(pid)
                    && f[5].endsWith(":" + inode)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void layoutChange_isRefused() {
        try (WorkerRegistry r = connect()) {
            Snowflake.newBuilder().registry(r).namespace(namespace).build().close();
            assertThatThrownBy(() -> Snowflake.newBuilder().registry(r).namespace(namespace)
                    .layout(Layout.REGION).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("was set up for layout");
        }
    }

    @Test
    void staticUri_opensTheLocalRegistry_otherSchemesNeedABackend() {
        try (WorkerRegistry r = WorkerRegistries.open("static:", dataDir)) {
            assertThat(r).isInstanceOf(StaticRegistry.class);
        }
        assertThatThrownBy(() -> WorkerRegistries.open("etcd://127.0.0.1:2379/x", dataDir))
                .hasMessageContaining("no backend for scheme 'etcd'");
        assertThatThrownBy(() -> WorkerRegistries.open("static:/tmp", dataDir))
                .hasMessageContaining("takes no address");
        assertThatThrownBy(() -> WorkerRegistries.open("nonsense", dataDir))
                .hasMessageContaining("is not a URI");
    }
}
