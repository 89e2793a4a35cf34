package io.idmint.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.testkit.RangeStoreContract;
import io.idmint.testkit.fixture.PostgresServer;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The range store contract on an application's own DataSource (a real PostgreSQL): a pool whose
 * connections come out in a transaction at repeatable read, as an application may configure it,
 * so every call here must set its own terms; and what it borrows goes back as it came.
 */
class PostgresDataSourceRangeStoreIT extends RangeStoreContract {

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    private final List<HikariDataSource> pools = new ArrayList<>();

    @Override
    protected RangeStore newClient() {
        HikariConfig h = new HikariConfig();
        h.setJdbcUrl(pg.url());
        h.setMaximumPoolSize(3);
        h.setAutoCommit(false);
        h.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
        HikariDataSource pool = new HikariDataSource(h);
        pools.add(pool);
        return JdbcRangeStores.open(pool, "default");
    }

    /** idmint's table: {@code tag VARCHAR(64)}. */
    @Override
    protected int maxTagLength() {
        return JdbcRangeStore.MAX_TAG;
    }

    /** The contract's clients are closed first: the DataSources stay the application's. */
    @AfterEach
    void closePools() {
        pools.forEach(HikariDataSource::close);
    }

    @Test
    void borrowedConnection_goesBackWithItsOwnSettings_andStaysOpen() throws Exception {
        try (Connection app = DriverManager.getConnection(pg.url())) {
            app.setAutoCommit(false);
            app.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            RangeStore store = JdbcRangeStores.open(single(app), "default");
            store.create(tag, 1, 10);
            Range first = store.allocate(tag, RangeStore.TAG_STEP);
            assertThat(store.tags()).anySatisfy(t -> assertThat(t.tag()).isEqualTo(tag));
            store.close();

            assertThat(app.isClosed()).isFalse();
            assertThat(app.getAutoCommit()).isFalse();
            assertThat(app.getTransactionIsolation())
                    .isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
            assertThat(first.start()).isEqualTo(1);
        }
    }

    /** A DataSource that hands out one connection every time, and never closes it. */
    private static DataSource single(Connection c) {
        Connection unclosable = (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> method.getName().equals("close") ? null
                        : method.invoke(c, args));
        return new DataSource() {
            @Override
            public Connection getConnection() {
                return unclosable;
            }

            @Override
            public Connection getConnection(String user, String password) {
                return unclosable;
            }

            @Override
            public PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(PrintWriter out) {
            }

            @Override
            public void setLoginTimeout(int seconds) {
            }

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public Logger getParentLogger() {
                return Logger.getGlobal();
            }

            @Override
            public <T> T unwrap(Class<T> iface) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean isWrapperFor(Class<?> iface) {
                return false;
            }
        };
    }
}
