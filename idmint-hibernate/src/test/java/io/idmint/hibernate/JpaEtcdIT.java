package io.idmint.hibernate;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.IdGenerator;
import io.idmint.hibernate.app.Invoice;
import io.idmint.hibernate.app.Invoices;
import io.idmint.hibernate.app.PurchaseOrder;
import io.idmint.hibernate.app.PurchaseOrders;
import io.idmint.hibernate.app.SampleApp;
import io.idmint.testkit.EtcdCluster;
import io.idmint.testkit.fixture.PostgresServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two instances of the sample application at once, their workers leased from a real etcd and
 * their rows saved into one PostgreSQL: every key is unique, every order ID decodes to one of the
 * two instances' workers.
 */
class JpaEtcdIT {

    private static final int THREADS = 4;
    private static final int ROWS = 5_000;

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    @TempDir
    Path dir;

    @Test
    void twoInstances_sameDatabase_noDuplicateKey() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.single()) {
            String url = pg.url();
            try (ConfigurableApplicationContext a = start(etcd, url, "create", "a");
                 ConfigurableApplicationContext b = start(etcd, url, "none", "b")) {
                int workerA = a.getBean(IdGenerator.class).status().workerId();
                int workerB = b.getBean(IdGenerator.class).status().workerId();
                assertThat(workerA).isNotEqualTo(workerB);

                ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS);
                try {
                    List<Future<?>> done = new ArrayList<>();
                    for (ConfigurableApplicationContext app : List.of(a, b)) {
                        for (int t = 0; t < THREADS; t++) {
                            done.add(pool.submit(() -> save(app)));
                        }
                    }
                    for (Future<?> f : done) {
                        f.get();
                    }
                } finally {
                    pool.shutdown();
                }

                JdbcTemplate sql = a.getBean(JdbcTemplate.class);
                long total = 2L * THREADS * ROWS;
                assertThat(sql.queryForObject("select count(distinct id) from purchase_order",
                        Long.class)).isEqualTo(total);
                assertThat(sql.queryForObject("select count(distinct id) from invoice",
                        Long.class)).isEqualTo(total);
                IdGenerator ids = a.getBean(IdGenerator.class);
                assertThat(sql.queryForList("select id from purchase_order", Long.class))
                        .allSatisfy(id -> assertThat(ids.layout().decode(id).workerId())
                                .isIn(Set.of(workerA, workerB)));
            }
        }
    }

    private ConfigurableApplicationContext start(EtcdCluster etcd, String url, String ddl,
            String name) {
        return SampleApp.builder().properties(
                "spring.main.web-application-type=none",
                "spring.main.banner-mode=off",
                "spring.datasource.url=" + url,
                "spring.jpa.hibernate.ddl-auto=" + ddl,
                "spring.jpa.properties.hibernate.jdbc.batch_size=100",
                "idmint.registry=etcd://" + etcd.endpoints() + "/jpa",
                "idmint.data-dir=" + dir.resolve(name),
                "idmint.segment.store=" + url,
                "idmint.segment.fetch-timeout=30s").run();
    }

    private static Void save(ConfigurableApplicationContext app) {
        PurchaseOrders orders = app.getBean(PurchaseOrders.class);
        Invoices invoices = app.getBean(Invoices.class);
        for (int batch = 0; batch < ROWS / 500; batch++) {
            List<PurchaseOrder> o = new ArrayList<>();
            List<Invoice> i = new ArrayList<>();
            for (int r = 0; r < 500; r++) {
                o.add(new PurchaseOrder("item"));
                i.add(new Invoice("inv"));
            }
            orders.saveAll(o);
            invoices.saveAll(i);
        }
        return null;
    }
}
