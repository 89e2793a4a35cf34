package io.idmint.hibernate.app;

import org.springframework.data.jpa.repository.JpaRepository;

public interface Tickets extends JpaRepository<Ticket, Long> {
}
