/** A Spring Data JDBC sample application whose aggregates idmint keys (DataJdbcSampleIT). */
package io.idmint.sample.parcels;
