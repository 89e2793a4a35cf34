-- idmint worker registry, PostgreSQL. Idempotent: safe to run again (idmint registry init).
-- A namespace's bit layout, written on first use; a node with another layout refuses to join.
CREATE TABLE IF NOT EXISTS idmint_namespace (
    namespace VARCHAR(64) NOT NULL PRIMARY KEY,
    layout VARCHAR(255) NOT NULL
);
-- The name of each datacenter ID, so two datacenters configured with one ID cannot both start.
CREATE TABLE IF NOT EXISTS idmint_datacenter (
    namespace VARCHAR(64) NOT NULL,
    datacenter_id INTEGER NOT NULL,
    name VARCHAR(64) NOT NULL,
    PRIMARY KEY (namespace, datacenter_id)
);
-- One row per worker ID ever used. hwm: the high-water mark (Unix ms); generation: the fencing
-- token, incremented by every write; holder: '' when free; lease_until: the database server's
-- clock, NULL when free.
CREATE TABLE IF NOT EXISTS idmint_worker (
    namespace VARCHAR(64) NOT NULL,
    datacenter_id INTEGER NOT NULL,
    worker_id INTEGER NOT NULL,
    hwm BIGINT NOT NULL DEFAULT 0,
    generation BIGINT NOT NULL DEFAULT 0,
    holder VARCHAR(255) NOT NULL DEFAULT '',
    lease_until TIMESTAMP WITH TIME ZONE NULL,
    PRIMARY KEY (namespace, datacenter_id, worker_id)
);
