package io.idmint.hibernate.app;

import org.springframework.data.jpa.repository.JpaRepository;

public interface Vouchers extends JpaRepository<Voucher, Long> {
}
