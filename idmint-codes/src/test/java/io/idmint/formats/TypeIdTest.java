package io.idmint.formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TypeID against the specification's own test files (src/test/resources/typeid, from the public
 * jetify-com/typeid repository, Apache-2.0): every valid case encodes and decodes both ways,
 * every invalid case is refused.
 */
class TypeIdTest {

    private static final Pattern OBJECT = Pattern.compile("\\{([^{}]*)}");
    private static final Pattern FIELD = Pattern.compile(
            "\"(\\w+)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    static Stream<Map<String, String>> valid() throws IOException {
        return cases("valid.json").stream();
    }

    static Stream<Map<String, String>> invalid() throws IOException {
        return cases("invalid.json").stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void validCase_encodesAndDecodes(Map<String, String> c) {
        UUID uuid = UUID.fromString(c.get("uuid"));
        assertThat(new TypeId(c.get("prefix"), uuid).toString()).isEqualTo(c.get("typeid"));
        TypeId parsed = TypeId.parse(c.get("typeid"));
        assertThat(parsed.prefix()).isEqualTo(c.get("prefix"));
        assertThat(parsed.uuid()).isEqualTo(uuid);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void invalidCase_isRefused(Map<String, String> c) {
        assertThatThrownBy(() -> TypeId.parse(c.get("typeid")))
                .as(c.get("description")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a TypeID");
    }

    @Test
    void specFiles_areAllThere() throws IOException {
        assertThat(cases("valid.json")).hasSize(9);
        assertThat(cases("invalid.json")).hasSize(21);
    }

    @Test
    void fencedOrNot_aUuidV7RoundTrips_andABadPrefixIsNamed() {
        UUID v7 = UuidV7.parse("01890a5d-ac96-774b-bcce-b302099a8057");
        assertThat(TypeId.parse(new TypeId("ord", v7).toString())).isEqualTo(new TypeId("ord",
                v7));
        assertThatThrownBy(() -> new TypeId("Ord", v7))
                .hasMessage("TypeID prefix 'Ord' has 'O': only lowercase letters a-z and '_' may "
                        + "be in a prefix");
    }

    @Test
    void expectedPrefix_refusesAnotherType_namingBoth() {
        String order = new TypeId("ord", new UUID(1, 2)).toString();
        assertThat(TypeId.parse(order, "ord").uuid()).isEqualTo(new UUID(1, 2));
        assertThatThrownBy(() -> TypeId.parse(order, "inv"))
                .hasMessage("'" + order + "' is an 'ord' ID where an 'inv' one is expected");
    }

    /** The objects of a spec file, each as its string fields, named by "name". */
    private static List<Map<String, String>> cases(String file) throws IOException {
        String json;
        try (InputStream in = TypeIdTest.class.getResourceAsStream("/typeid/" + file)) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Map<String, String>> out = new ArrayList<>();
        Matcher o = OBJECT.matcher(json);
        while (o.find()) {
            Map<String, String> fields = new LinkedHashMap<>() {
                @Override
                public String toString() {
                    return get("name");
                }
            };
            Matcher f = FIELD.matcher(o.group(1));
            while (f.find()) {
                fields.put(f.group(1), f.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
            }
            out.add(fields);
        }
        return out;
    }
}
