package io.idmint.jdbc;

/** The registry contract on H2 in this JVM: each client is its own pool on one database. */
class H2RegistryContractIT extends JdbcRegistryContract {

    private static final String URL = TestDatabases.h2Url("contract");

    @Override
    String url() {
        return URL;
    }
}
