package io.idmint.jackson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idmint.IdCodec;
import io.idmint.codes.CodeCodec;
import io.idmint.codes.Codes;
import io.idmint.codes.Keys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdmintModuleTest {

    /** Above 2^53: a JSON number this large loses its last digits in JavaScript. */
    static final long BIG = 1_234_567_890_123_456_789L;

    record Order(@JsonId long id, @JsonId Long parentId, long quantity, String item) {
    }

    record Formats(@JsonId(IdFormat.HEX) long hex, @JsonId(IdFormat.BASE32) long base32,
            @JsonId(IdFormat.CODE) long code) {
    }

    record Unannotated(long id, Long customerId, long order_id, long quantity) {
    }

    static final class Bean {
        private long id;
        private long count;

        public long getId() {
            return id;
        }

        public void setId(long id) {
            this.id = id;
        }

        public long getCount() {
            return count;
        }

        public void setCount(long count) {
            this.count = count;
        }
    }

    record Misplaced(@JsonId String name) {
    }

    @TempDir
    Path dir;

    private final ObjectMapper mapper = new ObjectMapper()
            .registerModule(IdmintModule.newBuilder().build());

    @Test
    void write_annotatedIds_areStrings_otherLongsStayNumbers() throws Exception {
        String json = mapper.writeValueAsString(new Order(BIG, 7L, 3, "pen"));
        assertThat(json).isEqualTo("{\"id\":\"" + BIG + "\",\"parentId\":\"7\",\"quantity\":3,"
                + "\"item\":\"pen\"}");
        assertThat(mapper.writeValueAsString(new Order(BIG, null, 3, "pen")))
                .contains("\"parentId\":null");
    }

    @Test
    void read_stringsAndNumbers_bothGiveTheId() throws Exception {
        Order fromString = mapper.readValue("{\"id\":\"" + BIG + "\",\"parentId\":\"7\","
                + "\"quantity\":3,\"item\":\"pen\"}", Order.class);
        Order fromNumber = mapper.readValue("{\"id\":" + BIG + ",\"parentId\":7,"
                + "\"quantity\":3,\"item\":\"pen\"}", Order.class);
        assertThat(fromString).isEqualTo(new Order(BIG, 7L, 3, "pen"));
        assertThat(fromNumber).isEqualTo(fromString);
        assertThat(mapper.readValue("{\"id\":\"1\",\"parentId\":null}", Order.class).parentId())
                .isNull();
    }

    @Test
    void read_badValues_failNamingTheValue() {
        assertThatThrownBy(() -> mapper.readValue("{\"id\":\"12x\"}", Order.class))
                .isInstanceOf(JsonMappingException.class).hasMessageContaining("12x")
                .hasMessageContaining("not a DECIMAL ID");
        assertThatThrownBy(() -> mapper.readValue("{\"id\":-5}", Order.class))
                .isInstanceOf(JsonMappingException.class).hasMessageContaining("-5");
        assertThatThrownBy(() -> mapper.readValue("{\"id\":1.5}", Order.class))
                .isInstanceOf(JsonMappingException.class).hasMessageContaining("1.5");
        assertThatThrownBy(() -> mapper.readValue("{\"id\":99999999999999999999}", Order.class))
                .isInstanceOf(JsonMappingException.class)
                .hasMessageContaining("99999999999999999999");
        assertThatThrownBy(() -> mapper.readValue("{\"id\":null}", Order.class))
                .isInstanceOf(JsonMappingException.class).hasMessageContaining("null is not an ID");
    }

    @Test
    void formats_hexBase32Code_roundTrip() throws Exception {
        CodeCodec codes = Codes.newBuilder().key(1, Keys.generate()).build();
        ObjectMapper m = new ObjectMapper()
                .registerModule(IdmintModule.newBuilder().codes(codes).build());
        Formats f = new Formats(BIG, BIG, BIG);
        String json = m.writeValueAsString(f);
        assertThat(json).isEqualTo("{\"hex\":\"" + IdCodec.HEX.format(BIG) + "\",\"base32\":\""
                + IdCodec.BASE32.format(BIG) + "\",\"code\":\"" + codes.encode(BIG) + "\"}");
        assertThat(m.readValue(json, Formats.class)).isEqualTo(f);
    }

    record Invoice(@JsonId(prefix = "inv") long id, @JsonId(prefix = "ord") Long orderId) {
    }

    record BadPrefix(@JsonId(prefix = "Ord") long id) {
    }

    @Test
    void prefix_writesTypedIds_andRefusesAnotherType() throws Exception {
        Invoice i = new Invoice(BIG, 42L);
        String json = mapper.writeValueAsString(i);
        assertThat(json).isEqualTo("{\"id\":\"" + new io.idmint.TypedId("inv", BIG)
                + "\",\"orderId\":\"ord_000000000001a\"}");
        assertThat(mapper.readValue(json, Invoice.class)).isEqualTo(i);
        assertThatThrownBy(() -> mapper.readValue("{\"id\":\"ord_000000000001a\"}",
                Invoice.class)).isInstanceOf(JsonMappingException.class)
                .hasMessageContaining("'ord_000000000001a' is an 'ord' ID where an 'inv' one is "
                        + "expected");
        assertThatThrownBy(() -> mapper.writeValueAsString(new BadPrefix(1)))
                .isInstanceOf(JsonMappingException.class)
                .hasMessageContaining("@JsonId(prefix = \"Ord\") on id: the prefix has 'O'");
    }

    @Test
    void code_withoutCodec_failsNamingTheFix() {
        assertThatThrownBy(() -> mapper.writeValueAsString(new Formats(1, 1, 1)))
                .isInstanceOf(JsonMappingException.class)
                .hasMessageContaining("@JsonId(CODE) on code needs the codes codec");
    }

    @Test
    void jsonId_onANonLong_isRefused() {
        assertThatThrownBy(() -> mapper.writeValueAsString(new Misplaced("x")))
                .isInstanceOf(JsonMappingException.class)
                .hasMessageContaining("@JsonId on name: its type java.lang.String is not long");
    }

    @Test
    void allIdProperties_idNamedLongs_areStrings() throws Exception {
        ObjectMapper m = new ObjectMapper()
                .registerModule(IdmintModule.newBuilder().allIdProperties().build());
        Unannotated u = new Unannotated(BIG, 5L, 6, 9);
        String json = m.writeValueAsString(u);
        assertThat(json).isEqualTo("{\"id\":\"" + BIG + "\",\"customerId\":\"5\","
                + "\"order_id\":\"6\",\"quantity\":9}");
        assertThat(m.readValue(json, Unannotated.class)).isEqualTo(u);

        Bean b = new Bean();
        b.setId(BIG);
        b.setCount(4);
        String beanJson = m.writeValueAsString(b);
        assertThat(beanJson).isEqualTo("{\"id\":\"" + BIG + "\",\"count\":4}");
        assertThat(m.readValue(beanJson, Bean.class).getId()).isEqualTo(BIG);
        assertThatThrownBy(() -> m.readValue("{\"id\":\"nope\"}", Bean.class))
                .hasMessageContaining("nope");
    }

    @Test
    void javaScript_parsesTheStringWithoutLosingDigits() throws Exception {
        Path script = dir.resolve("parse.js");
        Files.writeString(script, "const o = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                + "process.stdout.write(typeof o.id + ' ' + o.id + ' ' + BigInt(o.id));");
        String json = mapper.writeValueAsString(new Order(BIG, null, 1, "pen"));
        Process node = new ProcessBuilder("node", script.toString()).start();
        node.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
        node.getOutputStream().close();
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out).isEqualTo("string " + BIG + " " + BIG);
    }
}
