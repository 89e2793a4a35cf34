package io.idmint.server.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.server.chaos.Chaos.Kind;
import io.idmint.server.chaos.Chaos.Plan;
import io.idmint.server.chaos.Chaos.Step;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The nemesis plan: one seed gives one fault sequence, and each round does every kind. */
public class ChaosPlanTest {

    private static List<Step> steps(long seed, List<Kind> kinds, int n) {
        Plan plan = new Plan(seed, kinds, 3);
        List<Step> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(plan.next());
        }
        return out;
    }

    @Test
    public void next_sameSeed_sameSequence_otherSeed_otherSequence() {
        List<Kind> kinds = Chaos.kinds(List.of(ChaosStore.Fault.values()));
        assertThat(steps(42, kinds, 50)).isEqualTo(steps(42, kinds, 50));
        assertThat(steps(42, kinds, 50)).isNotEqualTo(steps(43, kinds, 50));
    }

    @Test
    public void next_everyRound_doesEveryKindOnce_withinTheBounds() {
        List<Kind> kinds = Chaos.kinds(List.of(ChaosStore.Fault.values()));
        assertThat(kinds).containsExactlyInAnyOrder(Kind.values());
        List<Step> steps = steps(7, kinds, kinds.size() * 5);
        for (int r = 0; r < 5; r++) {
            List<Step> round = steps.subList(r * kinds.size(), (r + 1) * kinds.size());
            assertThat(new HashSet<>(round.stream().map(Step::kind).toList()))
                    .as("round %d", r).hasSize(kinds.size());
        }
        assertThat(steps).allSatisfy(s -> {
            assertThat(s.node()).isBetween(0, 2);
            assertThat(s.gapMillis()).isBetween(3_000L, 6_999L);
            assertThat(s.holdMillis()).isBetween(2_000L, 5_999L);
        });
    }

    @Test
    public void kinds_followTheStore() {
        assertThat(Chaos.kinds(List.of(ChaosStore.Fault.OUTAGE))).doesNotContain(
                Kind.MEMBER_KILL, Kind.MEMBER_STOP).contains(Kind.STORE_OUTAGE);
        assertThat(Chaos.kinds(List.of(ChaosStore.Fault.MEMBER_KILL, ChaosStore.Fault.OUTAGE)))
                .contains(Kind.MEMBER_KILL).doesNotContain(Kind.MEMBER_STOP);
    }

    @Test
    public void faults_byName_anyCase_andAnUnknownNameIsRefusedWithTheKinds() {
        assertThat(Chaos.Settings.faults("")).isEmpty();
        assertThat(Chaos.Settings.faults("store_outage, Member-Kill,clock_back"))
                .containsExactly(Kind.STORE_OUTAGE, Kind.MEMBER_KILL, Kind.CLOCK_BACK);
        assertThatThrownBy(() -> Chaos.Settings.faults("outage"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'outage'").hasMessageContaining("STORE_OUTAGE");
    }
}
