/** The sample Spring Boot application the JPA tests run. */
package io.idmint.hibernate.app;
