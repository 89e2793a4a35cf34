package io.idmint.hibernate.app;

import io.idmint.jackson.JsonId;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** Creates and returns orders; their IDs travel as JSON strings. */
@RestController
public class OrderController {

    /** What the API shows of an order. */
    public record OrderView(@JsonId long id, String item) {
        static OrderView of(PurchaseOrder o) {
            return new OrderView(o.id(), o.item());
        }
    }

    /** What a client sends to create one. */
    public record NewOrder(String item) {
    }

    private final PurchaseOrders orders;

    OrderController(PurchaseOrders orders) {
        this.orders = orders;
    }

    @PostMapping("/orders")
    public OrderView create(@RequestBody NewOrder order) {
        return OrderView.of(orders.save(new PurchaseOrder(order.item())));
    }

    @GetMapping("/orders/{id}")
    public OrderView get(@PathVariable("id") long id) {
        return OrderView.of(orders.findById(id).orElseThrow());
    }
}
