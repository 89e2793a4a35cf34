package io.idmint.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.codes.CodeCodec;
import io.idmint.jackson.IdFormat;
import io.idmint.jackson.JsonId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot web application with the starter and idmint's Jackson module for its Boot line
 * (idmint-jackson on Boot 3.5, idmint-jackson3 on Boot 4 in idmint-spring-boot4-tests), and no
 * JSON code of its own: a REST controller's {@code long} ID reaches Node's {@code JSON.parse}
 * digit for digit, and comes back in a POST as the same ID. With
 * {@code idmint.jackson.enabled=false} it is a JSON number again, which JavaScript rounds.
 */
class IdmintJacksonIT {

    /**
     * Near 2^62: a JavaScript number (a double) holds 4611686018427387904 instead, which prints
     * as 4611686018427388000 and is sent back so.
     */
    static final long ID = (1L << 62) + 1;

    /** An ID found by its name, and one that {@code @JsonId} writes as its public code. */
    public record Order(long id, @JsonId(IdFormat.CODE) long code, long quantity) {
    }

    @RestController
    static class Orders {

        @GetMapping("/order")
        Order order() {
            return new Order(ID, ID, 3);
        }

        @PostMapping("/order")
        Order echo(@RequestBody Order order) {
            return order;
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Orders.class)
    static class App {
    }

    /** GETs the order, prints what JSON.parse made of it, POSTs it back and prints the answer. */
    private static final String CLIENT = """
            (async () => {
              const url = process.argv[1] + '/order';
              const o = JSON.parse(await (await fetch(url)).text());
              const show = x => [typeof x.id, String(x.id), typeof x.code, String(x.code),
                  typeof x.quantity, String(x.quantity)].join(' ');
              console.log(show(o));
              const back = await fetch(url, {method: 'POST', body: JSON.stringify(o),
                  headers: {'content-type': 'application/json'}});
              console.log(show(JSON.parse(await back.text())));
            })().catch(e => { console.error(e); process.exit(1); });
            """;

    @TempDir
    Path dir;

    private ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(App.class).properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "idmint.data-dir=" + dir,
                "idmint.codes.key=000102030405060708090a0b0c0d0e0f").properties(properties)
                .run();
    }

    @Test
    void restController_longIdsReachJavaScriptExactly_asStrings() throws Exception {
        try (ConfigurableApplicationContext app = start()) {
            String code = app.getBean(CodeCodec.class).encode(ID);
            String exact = "string 4611686018427387905 string " + code + " number 3";
            assertThat(node(app)).isEqualTo(exact + "\n" + exact + "\n");
        }
    }

    @Test
    void jacksonDisabled_idsAreNumbers_javaScriptRoundsThem() throws Exception {
        try (ConfigurableApplicationContext app = start("idmint.jackson.enabled=false")) {
            String rounded = "number 4611686018427388000 number 4611686018427388000 number 3";
            assertThat(node(app)).isEqualTo(rounded + "\n" + rounded + "\n");
        }
    }

    /** What {@link #CLIENT}, run by Node against the application, printed. */
    private static String node(ConfigurableApplicationContext app) throws Exception {
        String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
        Process node = new ProcessBuilder("node", "-e", CLIENT, base).redirectErrorStream(true)
                .start();
        node.getOutputStream().close();
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(node.waitFor(30, TimeUnit.SECONDS)).as(out).isTrue();
        assertThat(node.exitValue()).as(out).isZero();
        return out;
    }
}
