-- idmint segment store, H2 2.x. Idempotent: safe to run again.
-- One row per tag of a namespace. next_id: the first value of the tag's next allocation; an
-- allocation adds its size in one UPDATE and reads the sum back in the same transaction.
-- step: the size of an allocation that asks for the tag's own step (its first one), 1..2^40.
-- Never lower next_id or delete a row that is in use: the values below it were handed out.
CREATE TABLE IF NOT EXISTS idmint_segment (
    namespace VARCHAR(64) NOT NULL,
    tag VARCHAR(64) NOT NULL,
    next_id BIGINT NOT NULL CHECK (next_id >= 0),
    step BIGINT NOT NULL CHECK (step BETWEEN 1 AND 1099511627776),
    PRIMARY KEY (namespace, tag)
);

-- Serial definitions (idmint serial define): one row per serial of a namespace, its definition
-- as idmint writes it; its per-period counters are rows of idmint_segment. Never change a row.
CREATE TABLE IF NOT EXISTS idmint_serial (
    namespace VARCHAR(64) NOT NULL,
    name VARCHAR(64) NOT NULL,
    definition VARCHAR(1000) NOT NULL,
    PRIMARY KEY (namespace, name)
);
