-- idmint worker registry, MySQL 8 / MariaDB 10.3+. Idempotent: safe to run again
-- (idmint registry init). Keys are ascii_bin so namespaces compare case-sensitively, as on
-- PostgreSQL. lease_until is DATETIME in UTC (UTC_TIMESTAMP), so no session time zone applies.
-- A namespace's bit layout, written on first use; a node with another layout refuses to join.
CREATE TABLE IF NOT EXISTS idmint_namespace (
    namespace VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
    layout VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL
) ENGINE=InnoDB;
-- The name of each datacenter ID, so two datacenters configured with one ID cannot both start.
CREATE TABLE IF NOT EXISTS idmint_datacenter (
    namespace VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    datacenter_id INTEGER NOT NULL,
    name VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    PRIMARY KEY (namespace, datacenter_id)
) ENGINE=InnoDB;
-- One row per worker ID ever used. hwm: the high-water mark (Unix ms); generation: the fencing
-- token, incremented by every write; holder: '' when free; lease_until: the database server's
-- clock (UTC), NULL when free.
CREATE TABLE IF NOT EXISTS idmint_worker (
    namespace VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    datacenter_id INTEGER NOT NULL,
    worker_id INTEGER NOT NULL,
    hwm BIGINT NOT NULL DEFAULT 0,
    generation BIGINT NOT NULL DEFAULT 0,
    holder VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
    lease_until DATETIME(3) NULL,
    PRIMARY KEY (namespace, datacenter_id, worker_id)
) ENGINE=InnoDB;
