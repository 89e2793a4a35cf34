package io.idmint.hibernate.app;

import org.springframework.data.jpa.repository.JpaRepository;

public interface PurchaseOrders extends JpaRepository<PurchaseOrder, Long> {
}
