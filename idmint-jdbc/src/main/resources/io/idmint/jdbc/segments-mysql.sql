-- idmint segment store, MySQL 8 / MariaDB 10.3+. Idempotent: safe to run again. Keys are
-- ascii_bin so tags compare case-sensitively, as on PostgreSQL.
-- One row per tag of a namespace. next_id: the first value of the tag's next allocation; an
-- allocation adds its size in one UPDATE and reads the sum back in the same transaction.
-- step: the size of an allocation that asks for the tag's own step (its first one), 1..2^40.
-- Never lower next_id or delete a row that is in use: the values below it were handed out.
CREATE TABLE IF NOT EXISTS idmint_segment (
    namespace VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    tag VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    next_id BIGINT NOT NULL CHECK (next_id >= 0),
    step BIGINT NOT NULL CHECK (step BETWEEN 1 AND 1099511627776),
    PRIMARY KEY (namespace, tag)
) ENGINE=InnoDB;

-- Serial definitions (idmint serial define): one row per serial of a namespace, its definition
-- as idmint writes it; its per-period counters are rows of idmint_segment. Never change a row.
CREATE TABLE IF NOT EXISTS idmint_serial (
    namespace VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    name VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    definition VARCHAR(1000) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    PRIMARY KEY (namespace, name)
) ENGINE=InnoDB;
