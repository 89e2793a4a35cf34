package io.idmint.jdbc;

import io.idmint.testkit.fixture.H2Database;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registry contract on H2 in this JVM: each client is its own pool on one database. */
class H2RegistryContractIT extends JdbcRegistryContract {

    @RegisterExtension
    static final H2Database h2 = H2Database.inMemory();

    @Override
    String url() {
        return h2.url();
    }
}
