package io.idmint.entity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.IdGenerator;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.Segments;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.InMemoryRangeStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** EntityIds on a real generator (a local registry) and segments over an in-memory store. */
class EntityIdsTest {

    @TempDir
    Path dir;

    private WorkerRegistry registry;
    private IdGenerator ids;
    private InMemoryRangeStore store;
    private SegmentGenerator segments;
    private EntityIds entities;

    static class Base {
        @IdmintId
        Long id;
    }

    static class Order extends Base {
        @IdmintId(code = true)
        String publicNumber;
        @IdmintId
        String digits;
        @IdmintSegment("invoice")
        long invoice;
        String note;
    }

    static class WrongType {
        @IdmintId
        Integer id;
    }

    static class Both {
        @IdmintId
        @IdmintSegment("x")
        Long id;
    }

    static class CodeOnLong {
        @IdmintId(code = true)
        Long id;
    }

    static class Fixed {
        @IdmintSegment(value = "fixed", autoCreate = false)
        Long number;
    }

    record Frozen(@IdmintId Long id) {
    }

    static class Reading {
        @IdmintId
        java.util.UUID id;
    }

    static class UuidCounter {
        @IdmintSegment("readings")
        java.util.UUID number;
    }

    @BeforeEach
    void start() {
        registry = WorkerRegistries.local(dir);
        ids = Snowflake.newBuilder().registry(registry).build();
        store = new InMemoryRangeStore();
        segments = Segments.newBuilder().store(store).build();
        entities = EntityIds.newBuilder().ids(ids).segments(segments).store(store)
                .codes(id -> "C" + Long.toString(id, 36)).build();
    }

    @AfterEach
    void stop() {
        segments.close();
        ids.close();
        registry.close();
    }

    @Test
    void fill_setsEveryUnsetField_inItsForm() {
        Order order = entities.fill(new Order());

        assertThat(ids.layout().decode(order.id).workerId())
                .isEqualTo(ids.status().workerId());
        assertThat(order.publicNumber).startsWith("C");
        assertThat(Long.parseLong(order.digits)).isGreaterThan(order.id);
        assertThat(order.invoice).isEqualTo(1);
        assertThat(order.note).isNull();
        assertThat(entities.slots(Order.class)).extracting(s -> s.field().getName())
                .containsExactly("id", "publicNumber", "digits", "invoice");
    }

    @Test
    void fill_keepsValuesAlreadySet() {
        Order order = new Order();
        order.id = 42L;
        order.invoice = 7;
        order.publicNumber = "mine";

        entities.fill(order);

        assertThat(order.id).isEqualTo(42L);
        assertThat(order.invoice).isEqualTo(7);
        assertThat(order.publicNumber).isEqualTo("mine");
        assertThat(order.digits).isNotEmpty();
    }

    @Test
    void fillAll_drawsEachFieldOnce_denseAndUnique() {
        List<Order> orders = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            orders.add(new Order());
        }
        orders.get(3).invoice = 999_999;

        entities.fillAll(orders);

        assertThat(orders).extracting(o -> o.id).doesNotHaveDuplicates().doesNotContainNull();
        assertThat(orders).extracting(o -> o.invoice).doesNotHaveDuplicates();
        assertThat(orders.get(3).invoice).isEqualTo(999_999);
        assertThat(orders.get(0).invoice).isEqualTo(1);
        assertThat(orders.get(2_499).invoice).isEqualTo(2_499);
        assertThat(store.allocateCalls()).isLessThan(10);
    }

    @Test
    void fill_fromManyThreads_isUnique() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<List<Order>>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    List<Order> mine = new ArrayList<>();
                    for (int i = 0; i < 2_000; i++) {
                        mine.add(i % 2 == 0 ? entities.fill(new Order()) : new Order());
                    }
                    entities.fillAll(mine);
                    return mine;
                }));
            }
            Set<Long> keys = new HashSet<>();
            Set<Long> invoices = new HashSet<>();
            for (Future<List<Order>> f : done) {
                for (Order o : f.get()) {
                    assertThat(keys.add(o.id)).isTrue();
                    assertThat(invoices.add(o.invoice)).isTrue();
                }
            }
            assertThat(invoices).hasSize(16_000);
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void uuidField_takesTheFencedUuidV7OfAnId_increasingSingleAndInBatches() {
        Reading one = entities.fill(new Reading());
        List<Reading> batch = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            batch.add(new Reading());
        }
        entities.fillAll(batch);

        long prev = io.idmint.FencedUuidV7.idOf(one.id, ids.layout());
        assertThat(one.id.version()).isEqualTo(7);
        assertThat(ids.layout().decode(prev).workerId()).isEqualTo(ids.status().workerId());
        for (Reading r : batch) {
            long id = io.idmint.FencedUuidV7.idOf(r.id, ids.layout());
            assertThat(id).isGreaterThan(prev);
            prev = id;
        }
    }

    @Test
    void badFields_areRefused_namingTheField() {
        assertThatThrownBy(() -> entities.fill(new WrongType()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@IdmintId on " + WrongType.class.getName() + ".id")
                .hasMessageContaining("long, Long, String or UUID, not a java.lang.Integer");
        assertThatThrownBy(() -> entities.check(UuidCounter.class))
                .hasMessageContaining("@IdmintSegment(\"readings\") on "
                        + UuidCounter.class.getName() + ".number")
                .hasMessageContaining("long, Long or String, not a java.util.UUID");
        assertThatThrownBy(() -> entities.slots(Both.class))
                .hasMessageContaining(Both.class.getName() + ".id").hasMessageContaining("both");
        assertThatThrownBy(() -> entities.check(CodeOnLong.class))
                .hasMessageContaining("@IdmintId(code = true) on " + CodeOnLong.class.getName())
                .hasMessageContaining("a String");
        assertThatThrownBy(() -> entities.fill(new Frozen(null)))
                .hasMessageContaining(Frozen.class.getName() + ".id")
                .hasMessageContaining("framework's own accessor");
    }

    @Test
    void missingGenerators_areNamed() {
        EntityIds none = EntityIds.newBuilder().build();
        assertThatThrownBy(() -> none.check(Base.class))
                .hasMessageContaining(Base.class.getName() + ".id")
                .hasMessageContaining("no ID generator");
        EntityIds noCodes = EntityIds.newBuilder().ids(ids).segments(segments).build();
        assertThatThrownBy(() -> noCodes.check(Order.class))
                .hasMessageContaining("@IdmintId(code = true) on " + Order.class.getName()
                        + ".publicNumber")
                .hasMessageContaining("idmint.codes.key");
        EntityIds noSegments = EntityIds.newBuilder().ids(ids).build();
        assertThatThrownBy(() -> noSegments.check(Fixed.class))
                .hasMessageContaining("@IdmintSegment(\"fixed\") on " + Fixed.class.getName())
                .hasMessageContaining("no segment generator");
    }

    @Test
    void autoCreateOff_missingTag_isRefusedAtCheck_andAtFill() throws Exception {
        assertThatThrownBy(() -> entities.check(Fixed.class))
                .hasMessageContaining("no tag 'fixed'").hasMessageContaining("autoCreate");
        assertThatThrownBy(() -> entities.fill(new Fixed()))
                .isInstanceOf(UnknownTagException.class);

        store.create("fixed", 100, 10);
        entities.check(Fixed.class);
        assertThat(entities.fill(new Fixed()).number).isEqualTo(100);
    }
}
