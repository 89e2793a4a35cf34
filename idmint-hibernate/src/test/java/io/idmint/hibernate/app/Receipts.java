package io.idmint.hibernate.app;

import org.springframework.data.jpa.repository.JpaRepository;

public interface Receipts extends JpaRepository<Receipt, Long> {
}
