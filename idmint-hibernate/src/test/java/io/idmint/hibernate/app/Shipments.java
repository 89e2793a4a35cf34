package io.idmint.hibernate.app;

import org.springframework.data.jpa.repository.JpaRepository;

public interface Shipments extends JpaRepository<Shipment, Long> {
}
