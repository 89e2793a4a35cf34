package io.idmint.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.GeneratorListener;
import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.LeaseState;
import io.idmint.Snowflake;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.MintingThread;
import io.idmint.testkit.fixture.ZkServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three generators on a three-member ensemble: the leader dies while they mint, then one
 * client's session expires (Curator's {@link KillSession}). All keep or regain a worker, and no
 * two holders of a worker minted in overlapping time ranges.
 */
class ZkClusterIT {

    /** Four worker IDs for three generators. */
    private static final Layout FOUR = Layout.parse("time=41,worker=2,sequence=12");

    /** Its own ensemble: the test kills the leader. */
    @RegisterExtension
    static final ZkServer zk = ZkServer.ensemble(3);

    @Test
    void leaderDies_thenASessionExpires_generatorsRecover_withoutOverlap() throws Exception {
        List<AutoCloseable> toClose = new ArrayList<>();
        TestingCluster cluster = zk.cluster();
        try {
            List<ZkRegistry> registries = new ArrayList<>();
            List<IdGenerator> gens = new ArrayList<>();
            List<MintingThread> minters = new ArrayList<>();
            List<String> victimStates = new CopyOnWriteArrayList<>();
            for (int i = 0; i < 3; i++) {
                // A 10 s session rides out the election; the lease protocol still uses 3 s.
                ZkRegistry r = ZkTesting.open(zk, "session=10s&timeout=2s");
                toClose.add(r);
                registries.add(r);
                GeneratorListener listener = i != 0 ? GeneratorListener.NONE
                        : new GeneratorListener() {
                            @Override
                            public void onStateChange(LeaseState from, LeaseState to, String why) {
                                victimStates.add(to + ": " + why);
                            }
                        };
                IdGenerator g = Snowflake.newBuilder().registry(r).namespace("cluster").layout(FOUR)
                        .leaseTtl(Duration.ofSeconds(3)).keepaliveInterval(Duration.ofSeconds(1))
                        .storeTimeout(Duration.ofSeconds(3))
                        .reservationWindow(Duration.ofSeconds(1))
                        .listener(listener).build();
                toClose.add(g);
                gens.add(g);
                MintingThread m = new MintingThread("g" + i, g);
                toClose.add(m);
                minters.add(m);
            }
            ZkTesting.await("all mint", 10_000,
                    () -> minters.stream().allMatch(m -> m.count() > 200));
            assertThat(gens.stream().map(g -> g.status().workerId()).distinct()).hasSize(3);

            InstanceSpec leader = ZkTesting.leader(cluster);
            int[] atKill = minters.stream().mapToInt(MintingThread::count).toArray();
            assertThat(cluster.killServer(leader)).isTrue();
            ZkTesting.await("all mint again after the leader died", 30_000, () -> {
                for (int i = 0; i < 3; i++) {
                    if (minters.get(i).count() < atKill[i] + 500 || !gens.get(i).status().ready()) {
                        return false;
                    }
                }
                return true;
            });

            ZkRegistry victim = registries.get(0);
            int atExpiry = minters.get(0).count();
            victimStates.clear();
            KillSession.kill(ZkTesting.curator(victim).getZookeeperClient().getZooKeeper());
            ZkTesting.await("the victim re-claims and mints again", 20_000,
                    () -> victimStates.stream().anyMatch(s -> s.startsWith("LOST"))
                            && gens.get(0).status().state() == LeaseState.ACTIVE
                            && minters.get(0).count() > atExpiry + 500);

            Map<String, long[]> byHolder = new HashMap<>();
            for (int i = 0; i < 3; i++) {
                minters.get(i).close();
                byHolder.put("g" + i, minters.get(i).ids());
                IdOracle.assertStrictlyIncreasing(minters.get(i).ids());
            }
            IdOracle.assertDisjointHolders(FOUR, byHolder);
            assertThat(gens.stream().map(g -> g.status().workerId()).distinct()).hasSize(3);
        } finally {
            for (int i = toClose.size() - 1; i >= 0; i--) {
                toClose.get(i).close();
            }
        }
    }
}
