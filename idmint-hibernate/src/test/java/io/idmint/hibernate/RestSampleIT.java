package io.idmint.hibernate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.hibernate.app.Invoice;
import io.idmint.hibernate.app.Invoices;
import io.idmint.hibernate.app.SampleApp;
import io.idmint.testkit.fixture.PostgresServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hibernate.SessionFactory;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/** The sample application's REST API: an entity's 64-bit ID reaches JavaScript intact. */
class RestSampleIT {

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    @TempDir
    Path dir;

    @Test
    void getOrder_idArrivesAsAStringInNodesJsonParse() throws Exception {
        String url = pg.url();
        try (ConfigurableApplicationContext app = SampleApp.builder().properties(
                "server.port=0", "spring.main.banner-mode=off",
                "spring.datasource.url=" + url,
                "spring.jpa.hibernate.ddl-auto=create",
                "idmint.data-dir=" + dir.resolve("data")).run()) {
            String base = "http://127.0.0.1:" + app.getEnvironment()
                    .getProperty("local.server.port");
            HttpClient http = HttpClient.newHttpClient();
            String created = http.send(HttpRequest.newBuilder(URI.create(base + "/orders"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"pen\"}")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Matcher m = Pattern.compile("\"id\":\"([0-9]+)\"").matcher(created);
            assertThat(m.find()).as(created).isTrue();
            long id = Long.parseLong(m.group(1));
            assertThat(id).isGreaterThan(1L << 53);

            String json = http.send(HttpRequest.newBuilder(URI.create(base + "/orders/"
                    + id)).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(node(json)).isEqualTo("string " + id + " pen");

            // No segment store configured: segments come from the application's DataSource.
            assertThat(app.getBean(Invoices.class).save(new Invoice("x")).id()).isPositive();
        }
    }

    @Test
    void segmentWithoutAGenerator_firstInsertSaysWhatToConfigure() {
        // Hibernate on its own, no Spring, no generator in its properties.
        StandardServiceRegistry registry = new StandardServiceRegistryBuilder()
                .applySetting("jakarta.persistence.jdbc.url", pg.url())
                .applySetting("hibernate.hbm2ddl.auto", "create")
                .build();
        try (SessionFactory sessions = new MetadataSources(registry)
                .addAnnotatedClass(Invoice.class).buildMetadata().buildSessionFactory()) {
            assertThatThrownBy(() -> sessions.inTransaction(s -> s.persist(new Invoice("x"))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("@IdmintSegment(\"invoice\")")
                    .hasMessageContaining("an application DataSource and idmint-jdbc, or "
                            + "idmint.segment.store")
                    .hasMessageContaining(IdmintHibernate.SEGMENT_GENERATOR);
        } finally {
            StandardServiceRegistryBuilder.destroy(registry);
        }
    }

    /** What Node's JSON.parse makes of the answer: the ID's type and value, and the item. */
    private String node(String json) throws Exception {
        Path script = dir.resolve("parse.js");
        Files.writeString(script, "const o = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                + "process.stdout.write(typeof o.id + ' ' + o.id + ' ' + o.item);");
        Process p = new ProcessBuilder("node", script.toString()).start();
        p.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out;
    }
}
