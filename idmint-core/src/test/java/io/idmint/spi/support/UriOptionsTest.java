package io.idmint.spi.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UriOptionsTest {

    private static final List<String> KNOWN = List.of("timeout", "user");
    private static final Function<String, IllegalArgumentException> BAD =
            why -> new IllegalArgumentException("x URI: " + why);

    @Test
    void parse_givesTheOptionsByLowerCaseName() {
        assertThat(UriOptions.parse("timeout=2s&USER=a=b", KNOWN, BAD))
                .isEqualTo(Map.of("timeout", "2s", "user", "a=b"));
        assertThat(UriOptions.parse("", KNOWN, BAD)).isEmpty();
        assertThat(UriOptions.parse(null, KNOWN, BAD)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "ttl=3s|x URI: unknown option 'ttl'; known: timeout, user",
        "timeout=1s&|x URI: unknown option ''; known: timeout, user",
        "timeout|x URI: option 'timeout' has no value",
        "user=|x URI: option 'user' has no value",
        "timeout=1s&Timeout=2s|x URI: option 'timeout' is given twice",
        "user=u&password=hunter2|x URI: a password goes in a file (password-file=) or an "
                + "environment variable (password-env=), not in the URI",
    })
    void parse_refusesTheFirstBadOption_throughBad(String query, String message) {
        assertThatThrownBy(() -> UriOptions.parse(query, KNOWN, BAD))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }
}
