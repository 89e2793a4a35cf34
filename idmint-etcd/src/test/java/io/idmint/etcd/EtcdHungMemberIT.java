package io.idmint.etcd;

import io.idmint.GeneratorListener;
import io.idmint.IdGenerator;
import io.idmint.Layout;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.testkit.HungMemberContract;
import io.idmint.testkit.fixture.EtcdServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hung member contract on a real 3-member etcd cluster, a fresh one for each test, a
 * member hung with SIGSTOP: with a 4 s store timeout and the default 2 s call timeout, a
 * generator keeps its worker and keeps issuing while the leader, or the member it talks to (the
 * one its URI lists first), is frozen for 8 s. Timings as a node would run them: lease TTL 10 s,
 * keepalive 1 s, reservation 5 s (so a renewal that fails for longer than a few seconds shows up
 * as refused IDs), store timeout 4 s. The TTL is longer than the hang on purpose: etcd before
 * the fix of etcd-io/etcd#15247 (3.4.23 here) lets a leader that resumes after more than a TTL
 * revoke the leases it thinks expired, though the new leader renewed them; with a 6 s TTL that
 * cost the worker in about a third of the runs (docs/registries.md, "Hung members").
 */
class EtcdHungMemberIT extends HungMemberContract {

    @RegisterExtension
    final EtcdServer etcd = EtcdServer.dedicated(3);

    private int listedFirst;

    /** The contract's node talks to the leader, listed first. */
    @Override
    protected IdGenerator generator(GeneratorListener listener) {
        listedFirst = leader();
        return generator(listedFirst, listener);
    }

    @Override
    protected int memberInUse(IdGenerator generator) {
        return listedFirst;
    }

    @Override
    protected void hang(int member) {
        etcd.cluster().pause(member);
    }

    @Override
    protected void resume(int member) {
        etcd.cluster().resume(member);
    }

    @Override
    protected boolean issuesThroughout() {
        return true;
    }

    @Test
    void followerHungForEightSeconds_generatorTalkingToIt_keepsWorkerAndIssues()
            throws Exception {
        int follower = (leader() + 1) % etcd.cluster().size();
        hangAndCheck(closeLater(generator(follower, listener())), () -> follower);
    }

    @Test
    void leaderHungForEightSeconds_generatorTalkingToAFollower_keepsWorkerAndIssues()
            throws Exception {
        int leader = leader();
        hangAndCheck(closeLater(generator((leader + 1) % etcd.cluster().size(), listener())),
                () -> leader);
    }

    private int leader() {
        return etcd.cluster().leader(Duration.ofSeconds(10));
    }

    /** A generator whose registry lists {@code first} as its first member. */
    private IdGenerator generator(int first, GeneratorListener listener) {
        List<String> members = new ArrayList<>();
        for (int i = 0; i < etcd.cluster().size(); i++) {
            members.add(etcd.cluster().endpoint((first + i) % etcd.cluster().size()));
        }
        var registry = closeLater(WorkerRegistries.open("etcd://" + String.join(",", members)
                + etcd.prefix(), Path.of("unused")));
        return Snowflake.newBuilder().registry(registry).namespace("hung")
                .layout(Layout.SNOWFLAKE).leaseTtl(Duration.ofSeconds(10))
                .keepaliveInterval(Duration.ofSeconds(1)).storeTimeout(Duration.ofSeconds(4))
                .reservationWindow(Duration.ofSeconds(5)).listener(listener).build();
    }
}
