package io.idmint.jdbc.shardid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.Layout;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ShardIdFunctionTest {

    private static final Duration WAIT = Duration.ofMillis(10);

    @Test
    void instagram_fillsTheSequenceField_andWritesTheLayoutsConstants() {
        ShardIdFunction f = ShardIdFunction.of(Layout.INSTAGRAM, "shard_5", 5,
                ShardIdFunction.defaultModulus(Layout.INSTAGRAM), WAIT);

        assertThat(f.modulus()).isEqualTo(512);
        assertThat(f.body())
                .contains("epoch_ms CONSTANT bigint := 1767225600000;")
                .contains("shard_id CONSTANT bigint := 5;")
                .contains("modulus CONSTANT bigint := 512;")
                .contains("time_shift CONSTANT integer := 22;")
                .contains("shard_shift CONSTANT integer := 9;")
                .contains("seq_shift CONSTANT integer := 0;")
                .contains("max_wait_ms CONSTANT bigint := 10;")
                .contains("FOR UPDATE")
                .contains("PERFORM pg_sleep(0.0005);") // waits without spinning on the clock
                .contains("setval('idmint.shard_5_hwm', id)")
                .contains("nextval('shard_5.next_id_seq') % modulus");
        assertThat(f.script()).startsWith("-- idmint sql install: shard_5.next_id() for shard 5")
                .contains("BEGIN;\n").endsWith("COMMIT;\n")
                .contains("CREATE OR REPLACE FUNCTION shard_5.next_id() RETURNS bigint");
    }

    @Test
    void customLayout_epochAndShiftsFollowIt() {
        Layout l = Layout.parse("time=41,sequence=10,shard=12,epoch=2020-01-01T00:00:00Z");
        ShardIdFunction f = ShardIdFunction.of(l, "s", 4095, 1024, WAIT);

        assertThat(f.body()).contains("epoch_ms CONSTANT bigint := 1577836800000;")
                .contains("seq_shift CONSTANT integer := 12;")
                .contains("shard_shift CONSTANT integer := 0;");
    }

    @Test
    void unsigned64BitLayout_isRefusedWithTheReason() {
        Layout wide = Layout.parse("time=42,shard=13,sequence=9");
        assertThatThrownBy(() -> ShardIdFunction.of(wide, "s", 0, 512, WAIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("uses all 64 bits; idmint mints at most 63");
    }

    @Test
    void layoutWithoutAShardField_isRefusedWithTheReason() {
        assertThatThrownBy(() -> ShardIdFunction.of(Layout.SNOWFLAKE, "s", 0, 512, WAIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no shard field");
    }

    @Test
    void sequenceNarrowerThanTheModulus_isRefusedWithTheReason() {
        assertThatThrownBy(() -> ShardIdFunction.of(Layout.INSTAGRAM, "s", 0, 1024, WAIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nextval modulus 1024")
                .hasMessageContaining("9 bits (values 0..511)")
                .hasMessageContaining("spill into the shard field");
    }

    @Test
    void workerField_isRefused() {
        Layout l = Layout.parse("time=41,worker=3,shard=10,sequence=9");
        assertThatThrownBy(() -> ShardIdFunction.of(l, "s", 0, 512, WAIT))
                .hasMessageContaining("has a worker field");
    }

    @Test
    void shardBeyondTheField_isRefused() {
        assertThatThrownBy(() -> ShardIdFunction.of(Layout.INSTAGRAM, "s", 8192, 512, WAIT))
                .hasMessageContaining("shard 8192 does not fit").hasMessageContaining("0..8191");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Shop", "a-b", "pg_x", "idmint", "x;drop", "1a"})
    void schemaThatIsNotAPlainIdentifier_isRefused(String schema) {
        assertThatThrownBy(() -> ShardIdFunction.of(Layout.INSTAGRAM, schema, 0, 512, WAIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema '" + schema + "'");
    }

    @Test
    void maxWaitOutOfRange_isRefused() {
        assertThatThrownBy(() -> ShardIdFunction.of(Layout.INSTAGRAM, "s", 0, 512,
                Duration.ofSeconds(11))).hasMessage("clock.max-wait must be between 0 and 10s, "
                + "got 11s");
    }
}
