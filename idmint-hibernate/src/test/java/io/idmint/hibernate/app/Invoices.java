package io.idmint.hibernate.app;

import org.springframework.data.jpa.repository.JpaRepository;

public interface Invoices extends JpaRepository<Invoice, Long> {
}
