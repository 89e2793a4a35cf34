package io.idmint.jdbc;

/** The range store contract on H2 in this JVM: each client is its own pool on one database. */
class H2RangeStoreContractIT extends JdbcRangeStoreContract {

    private static final String URL = TestDatabases.h2Url("segments-contract");

    @Override
    String url() {
        return URL;
    }
}
