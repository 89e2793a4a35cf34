/** A Spring Data JDBC application that must fail to start (DataJdbcSampleIT). */
package io.idmint.sample.badtype;
