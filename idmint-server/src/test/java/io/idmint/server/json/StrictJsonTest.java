package io.idmint.server.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StrictJsonTest {

    @Test
    void parse_everyKindOfValue() {
        Object v = StrictJson.parse(" {\"s\":\"a\\\"\\u00e9\\n\",\"n\":-12,\"f\":1.5e2,\"t\":true,"
                + "\"z\":null,\"a\":[1,[],{}],\"o\":{\"k\":false}} ");

        assertThat(v).isInstanceOf(Map.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> o = (Map<String, Object>) v;
        assertThat(o.get("s")).isEqualTo("a\"\u00e9\n");
        assertThat(o.get("n")).isEqualTo(-12L);
        assertThat(o.get("f")).isEqualTo(new BigDecimal("1.5e2"));
        assertThat(o.get("t")).isEqualTo(true);
        assertThat(o).containsKey("z");
        assertThat(o.get("z")).isNull();
        assertThat(o.get("a")).isEqualTo(List.of(1L, List.of(), Map.of()));
        assertThat(o.get("o")).isEqualTo(Map.of("k", false));
    }

    @Test
    void parse_duplicateName_atAnyDepth_isRefusedNamingIt() {
        assertThatThrownBy(() -> StrictJson.parse("{\"a\":{\"b\":1,\"b\":2}}"))
                .hasMessage("field 'b' is given twice (at character 13)");
        assertThatThrownBy(() -> StrictJson.parse("{\"tag\":\"a\",\"tag\":\"a\"}"))
                .hasMessage("field 'tag' is given twice (at character 12)");
    }

    @Test
    void parse_malformed_saysWhatAndWhereInPlainWords() {
        String[][] cases = {
            {"", "not valid JSON: the JSON ends too early (at character 1)"},
            {"not json", "not valid JSON: unexpected word; JSON knows true, false and null"},
            {"<tag/>", "not valid JSON: unexpected character '<'"},
            {"{\"a\":1", "not valid JSON: expected ',' or '}' after the value of field 'a' "
                    + "(at character 7)"},
            {"{\"a\" 1}", "not valid JSON: expected ':' after field name 'a'"},
            {"{'a':1}", "not valid JSON: expected a field name in double quotes"},
            {"{\"a\":1} x", "not valid JSON: more after the end of the JSON value"},
            {"\"abc", "not valid JSON: a string is not closed"},
            {"\"\\x\"", "not valid JSON: unknown escape '\\x'"},
            {"-", "not valid JSON: a number needs a digit here"},
            {"[1,]", "not valid JSON: unexpected character ']'"},
            {"tru", "not valid JSON: unexpected word"},
            {"[1 2]", "not valid JSON: expected ',' or ']' in an array (at character 4)"},
            {"[1", "not valid JSON: expected ',' or ']' in an array (at character 3)"},
            {"{\"a\":1 \"b\":2}", "not valid JSON: expected ',' or '}' after the value of "
                    + "field 'a' (at character 8)"},
            {"{\"tag\":", "not valid JSON: the JSON ends too early (at character 8)"},
            {"\"a\u0001\"", "not valid JSON: a control character inside a string "
                    + "(at character 3)"},
            {"01", "not valid JSON: a number must not start with 0 (at character 2)"},
            {"1.", "not valid JSON: a number needs a digit here"},
            {"{\"a\":-}", "not valid JSON: a number needs a digit here (at character 7)"},
            {"{\"a\":NaN}", "not valid JSON: unexpected word"},
            {"\"\\u12g4\"", "not valid JSON: \\u must be followed by 4 hex digits"},
            {"{\"a\":1}}", "not valid JSON: more after the end of the JSON value "
                    + "(at character 8)"},
            {"]", "not valid JSON: unexpected character ']' (at character 1)"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> StrictJson.parse(c[0])).as(c[0])
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(c[1]);
        }
    }

    @Test
    void parse_anyMalformedBody_namesNoneOfTheParsersInternals() {
        String valid = "{\"tag\":\"order\",\"start\":1,\"step\":[1000,2.5e3,true,null]}";
        // Every prefix, and every single character replaced by one that breaks JSON somewhere.
        for (int i = 0; i < valid.length(); i++) {
            for (String body : new String[] {valid.substring(0, i),
                valid.substring(0, i) + "\u0000" + valid.substring(i + 1),
                valid.substring(0, i) + "'" + valid.substring(i + 1),
                valid.substring(0, i) + "}" + valid.substring(i + 1)}) {
                try {
                    StrictJson.parse(body);
                } catch (IllegalArgumentException e) {
                    assertThat(e.getMessage()).as(body).matches("(not valid JSON: |field ').*"
                            + "\\(at character \\d+\\)")
                            .doesNotContain("code ", "Source", "REDACTED", "Feature", "jackson",
                                    "Exception", "token", "marker", "end-of-input");
                }
            }
        }
    }
}
