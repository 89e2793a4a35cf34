package io.idmint.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MembersTest {

    private static final long HOLD = 2_000;

    @Test
    void current_startsAtTheFirstListed_andSticksWithTheOneThatAnswered() {
        Members m = new Members(3, HOLD);
        assertThat(m.current()).isZero();
        assertThat(m.failed(0, false, 0)).isEqualTo(1);
        m.answered(1);
        assertThat(m.current()).isEqualTo(1);
    }

    @Test
    void failed_hungMember_isSkippedForTheHold_butOneThatFailedAtOnceIsNot() {
        Members m = new Members(3, HOLD);
        assertThat(m.failed(0, true, 0)).isEqualTo(1);     // 0 hung
        assertThat(m.failed(1, false, 10)).isEqualTo(2);   // 1 refused: alive
        assertThat(m.failed(2, false, 20)).as("0 is skipped, 1 is not").isEqualTo(1);
        assertThat(m.failed(1, false, 30)).isEqualTo(2);
        assertThat(m.failed(2, false, HOLD + 1)).as("0's hold is over").isZero();
    }

    @Test
    void failed_everyMemberHung_takesTheOneThatHungLongestAgo() {
        Members m = new Members(3, HOLD);
        m.failed(0, true, 0);
        m.failed(1, true, 100);
        assertThat(m.failed(2, true, 200)).isZero();
        assertThat(m.failed(0, true, 300)).isEqualTo(1);
        m.answered(1);
        assertThat(m.failed(1, true, 400)).as("answered since, then hung again: 2 is older")
                .isEqualTo(2);
    }

    @Test
    void failed_onAMemberOthersMovedAwayFrom_leavesTheCurrentOne() {
        Members m = new Members(3, HOLD);
        assertThat(m.failed(0, true, 0)).isEqualTo(1);
        assertThat(m.failed(0, true, 5)).as("a concurrent call on 0 failed too").isEqualTo(1);
        assertThat(m.current()).isEqualTo(1);
    }

    @Test
    void failed_singleMember_staysOnIt() {
        Members m = new Members(1, HOLD);
        assertThat(m.failed(0, true, 0)).isZero();
        assertThat(m.failed(0, false, 1)).isZero();
    }

    @Test
    void new_noMember_isRefused() {
        assertThatThrownBy(() -> new Members(0, HOLD)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no etcd member");
    }
}
