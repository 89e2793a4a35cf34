package io.idmint.jdbc;

import io.idmint.testkit.fixture.H2Database;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The range store contract on H2 in this JVM: each client is its own pool on one database. */
class H2RangeStoreContractIT extends JdbcRangeStoreContract {

    @RegisterExtension
    static final H2Database h2 = H2Database.inMemory();

    @Override
    String url() {
        return h2.url();
    }
}
