package io.idmint.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idmint.spi.Range;
import io.idmint.spi.RegistryException;
import io.idmint.spi.UnknownTagException;
import io.idmint.testkit.ForwardingRangeStore;
import io.idmint.testkit.IdOracle;
import io.idmint.testkit.InMemoryRangeStore;
import io.idmint.testkit.ManualTimeSource;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

class SerialsTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private final InMemoryRangeStore store = new InMemoryRangeStore();

    private static long at(String localDateTime, ZoneId zone) {
        return java.time.LocalDateTime.parse(localDateTime).atZone(zone).toInstant()
                .toEpochMilli();
    }

    private static SerialDefinition invoice(SerialPeriod period, String template) {
        return SerialDefinition.newBuilder("invoice").period(period).zone(BERLIN)
                .template(template).step(10).build();
    }

    @Test
    void invoiceOfTheDay_startsAtOneEachDay_inTheZonesDate_withItsCheckSymbol() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(at("2026-11-28T23:59:58", BERLIN));
        Serials serials = Serials.newBuilder().store(store).timeSource(clock).build();
        Serial s = serials.define(invoice(SerialPeriod.DAY,
                "INV-{date:yyyyMMdd}-{counter:6}{check}"));

        String a = s.next();
        String b = s.next();
        clock.advance(Duration.ofSeconds(2)); // midnight in Berlin: 23:00 UTC
        String c = s.next();

        assertThat(a).startsWith("INV-20261128-000001").hasSize(20);
        assertThat(b).startsWith("INV-20261128-000002");
        assertThat(c).startsWith("INV-20261129-000001");
        for (String v : List.of(a, b, c)) {
            assertThat(checks(v)).as(v).isTrue();
        }
        SerialStats stats = s.stats();
        assertThat(stats.tag()).isEqualTo("invoice~2026-11-29");
        assertThat(stats.issued()).isEqualTo(3);
        assertThat(stats.dropped()).as("the rest of 28 Nov's range").isEqualTo(8);
    }

    @Test
    void everyPeriodKind_itsLabelsAndDates_acrossYearEnd() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(at("2026-12-31T23:00:00", ZoneId.of("UTC")));
        Serials serials = Serials.newBuilder().store(store).timeSource(clock).build();
        Map<SerialPeriod, String> templates = Map.of(
                SerialPeriod.YEAR, "{date:yyyy}-ORD-{counter:9}",
                SerialPeriod.MONTH, "M{date:yyyyMM}-{counter}",
                SerialPeriod.WEEK, "W{date:YYYY-'W'ww}-{counter}",
                SerialPeriod.DAY, "D{date:yyyyMMdd}-{counter}",
                SerialPeriod.NONE, "N-{counter:7}");
        Map<SerialPeriod, Serial> made = new HashMap<>();
        for (SerialPeriod p : SerialPeriod.values()) {
            made.put(p, serials.define(SerialDefinition.newBuilder("s-" + p.key()).period(p)
                    .template(templates.get(p)).maxRate(10).build()));
        }
        Map<SerialPeriod, String> before = new HashMap<>();
        made.forEach((p, s) -> before.put(p, s.next()));
        clock.advance(Duration.ofHours(2)); // 2027-01-01T01:00Z
        Map<SerialPeriod, String> after = new HashMap<>();
        made.forEach((p, s) -> after.put(p, s.next()));

        assertThat(before.get(SerialPeriod.YEAR)).isEqualTo("2026-ORD-000000001");
        assertThat(after.get(SerialPeriod.YEAR)).isEqualTo("2027-ORD-000000001");
        assertThat(before.get(SerialPeriod.MONTH)).isEqualTo("M202612-1");
        assertThat(after.get(SerialPeriod.MONTH)).isEqualTo("M202701-1");
        // 2026-12-31 is a Thursday of ISO week 2026-W53; 2027-01-01 a Friday of the same week.
        assertThat(before.get(SerialPeriod.WEEK)).isEqualTo("W2026-W53-1");
        assertThat(after.get(SerialPeriod.WEEK)).isEqualTo("W2026-W53-2");
        assertThat(after.get(SerialPeriod.DAY)).isEqualTo("D20270101-1");
        assertThat(before.get(SerialPeriod.NONE)).isEqualTo("N-0000001");
        assertThat(after.get(SerialPeriod.NONE)).isEqualTo("N-0000002");
        assertThat(made.get(SerialPeriod.WEEK).stats().tag()).isEqualTo("s-week~2026-W53");
        assertThat(made.get(SerialPeriod.NONE).stats().tag()).isEqualTo("s-none~all");
    }

    /**
     * Several nodes (Serials on one store) on many threads while the clock crosses days, a
     * month and a year end, and both daylight-saving changes of Berlin: every value unique over
     * all periods, and every period dense but for what was dropped at its end or still held.
     */
    @Test
    void manyNodesAndThreads_crossingDaysMonthsYearAndDst_uniqueAndDenseButForDrops()
            throws Exception {
        String[] crossings = {"2026-03-28T23:59:59.990", "2026-03-29T01:59:59.990",
            "2026-10-24T23:59:59.990", "2026-10-25T02:59:59.990", "2026-11-30T23:59:59.990",
            "2026-12-31T23:59:59.990"};
        ManualTimeSource clock = new ManualTimeSource(at(crossings[0], BERLIN));
        SerialDefinition def = SerialDefinition.newBuilder("invoice").period(SerialPeriod.DAY)
                .zone(BERLIN).template("INV-{date:yyyyMMdd}-{counter:6}").step(7).build();
        List<Serial> nodes = new ArrayList<>();
        for (int n = 0; n < 3; n++) {
            Serials node = Serials.newBuilder().store(store).timeSource(clock).build();
            node.define(def);
            nodes.add(node.serial("invoice"));
        }
        ConcurrentLinkedQueue<SerialValue> all = new ConcurrentLinkedQueue<>();
        for (String crossing : crossings) {
            clock.set(at(crossing, BERLIN));
            IdOracle.together(6, t -> {
                Serial mine = nodes.get(t % nodes.size());
                for (int i = 0; i < 400; i++) {
                    if (t == 0 && i % 40 == 0) {
                        clock.advance(Duration.ofMillis(1));
                    }
                    SerialValue v = mine.nextValue();
                    assertThat(v.text()).startsWith("INV-" + v.period().toString()
                            .replace("-", "") + "-");
                    all.add(v);
                }
            });
        }
        Set<String> texts = new HashSet<>();
        Map<String, List<Long>> byTag = new HashMap<>();
        for (SerialValue v : all) {
            assertThat(texts.add(v.text())).as("%s issued twice", v.text()).isTrue();
            byTag.computeIfAbsent("invoice~" + v.period(), k -> new ArrayList<>())
                    .add(v.counter());
        }
        assertThat(texts).hasSize(6 * 400 * crossings.length);
        long dropped = nodes.stream().mapToLong(n -> n.stats().dropped()).sum();
        long held = nodes.stream().mapToLong(n -> n.stats().buffered()).sum();
        long allocated = 0;
        for (String tag : byTag.keySet()) {
            List<Range> ranges = store.ranges(tag);
            allocated += ranges.stream().mapToLong(r -> r.end() - r.start()).sum();
            assertThat(ranges.get(0).start()).as("%s starts at first", tag).isEqualTo(1);
        }
        assertThat(allocated).as("every value taken from the store is issued, dropped at its "
                + "period's end, or still held").isEqualTo(all.size() + dropped + held);
        assertThat(byTag).containsKeys("invoice~2026-03-28", "invoice~2026-03-29",
                "invoice~2026-10-24", "invoice~2026-10-25", "invoice~2026-11-30",
                "invoice~2026-12-01", "invoice~2026-12-31", "invoice~2027-01-01");
        assertThat(dropped).isPositive();
    }

    @Test
    void clockSteppedBackAnHourAcrossMidnight_reentersThatDayAboveWhatItIssued()
            throws Exception {
        ManualTimeSource clock = new ManualTimeSource(at("2026-11-28T23:50:00", BERLIN));
        Serials serials = Serials.newBuilder().store(store).timeSource(clock).build();
        Serial s = serials.define(invoice(SerialPeriod.DAY, "{date:yyyyMMdd}-{counter}"));
        List<SerialValue> got = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            got.add(s.nextValue());
        }
        clock.advance(Duration.ofMinutes(20)); // 00:10 on the 29th
        for (int i = 0; i < 5; i++) {
            got.add(s.nextValue());
        }
        clock.step(Duration.ofHours(-1)); // 23:10 on the 28th again
        for (int i = 0; i < 5; i++) {
            got.add(s.nextValue());
        }

        Set<String> texts = new HashSet<>();
        got.forEach(v -> assertThat(texts.add(v.text())).as(v.text()).isTrue());
        long highestOf28 = got.subList(0, 25).stream().mapToLong(SerialValue::counter).max()
                .getAsLong();
        for (SerialValue v : got.subList(30, 35)) {
            assertThat(v.period()).isEqualTo(LocalDate.of(2026, 11, 28));
            assertThat(v.counter()).isGreaterThan(highestOf28);
        }
    }

    @Test
    void twoNodesCrossingMidnightTogether_createTheNewDaysCounterOnce() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(at("2026-11-29T00:00:00", BERLIN));
        List<String> creates = java.util.Collections.synchronizedList(new ArrayList<>());
        ForwardingRangeStore counting = new ForwardingRangeStore(store) {
            @Override
            public void create(String tag, long start, long step) throws RegistryException {
                try {
                    super.create(tag, start, step);
                    creates.add(tag);
                } catch (RegistryException e) {
                    creates.add("conflict " + tag);
                    throw e;
                }
            }
        };
        SerialDefinition def = invoice(SerialPeriod.DAY, "{date:yyyyMMdd}-{counter}");
        Serial a = Serials.newBuilder().store(counting).timeSource(clock).build().define(def);
        Serial b = Serials.newBuilder().store(counting).timeSource(clock).build().define(def);
        Map<String, Boolean> firsts = new ConcurrentHashMap<>();
        IdOracle.together(2, t -> firsts.put((t == 0 ? a : b).next(), true));
        assertThat(creates.stream().filter(c -> !c.startsWith("conflict"))).containsExactly(
                "invoice~2026-11-29");
        assertThat(firsts.keySet()).containsExactlyInAnyOrder("20261129-1", "20261129-11");
    }

    /**
     * ISO/IEC 7064 MOD 37,36 validation, written from the standard, independent of the writer's
     * tables: the letters and digits of a value, its check symbol last, leave the state 1.
     */
    private static boolean checks(String text) {
        String symbols = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        int p = 36;
        int s = 0;
        for (char c : text.toUpperCase(java.util.Locale.ROOT).toCharArray()) {
            int v = symbols.indexOf(c);
            if (v >= 0) {
                s = (p + v) % 36;
                p = ((s == 0 ? 36 : s) * 2) % 37;
            }
        }
        return s == 1;
    }

    @Test
    void checkSymbol_asWritten_passesTheStandard_andEverySingleWrongSymbolFails() {
        SplittableRandom rnd = new SplittableRandom(7);
        String alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        for (int n = 0; n < 2_000; n++) {
            StringBuilder prefix = new StringBuilder();
            for (int i = 0; i < 1 + rnd.nextInt(20); i++) {
                prefix.append(alphabet.charAt(rnd.nextInt(36)));
            }
            // The writer's own output: literal text, the counter, the check symbol.
            String v = SerialDefinition.newBuilder("c").template(prefix + "-{counter}{check}")
                    .build().compiled().render(LocalDate.of(2026, 1, 1), null)
                    .write(rnd.nextLong(1, 1_000_000_000L));
            assertThat(checks(v)).as(v).isTrue();
            int at = rnd.nextInt(v.length());
            if (v.charAt(at) == '-') {
                continue;
            }
            char wrong = alphabet.charAt((alphabet.indexOf(v.charAt(at)) + 1 + rnd.nextInt(35))
                    % 36);
            String bad = v.substring(0, at) + wrong + v.substring(at + 1);
            assertThat(checks(bad)).as(bad).isFalse();
        }
    }

    @Test
    void definition_roundTripsThroughItsText() {
        SerialDefinition d = SerialDefinition.newBuilder("invoice").period(SerialPeriod.MONTH)
                .zone(BERLIN).template("{{INV}}-{date:yyyy-MM}-{counter:7}{check}").first(1000)
                .maxRate(3).step(50).build();
        SerialDefinition back = SerialDefinition.parse("invoice", d.text());
        assertThat(back).isEqualTo(d);
        assertThat(d.text()).isEqualTo("period=month\nzone=Europe/Berlin\n"
                + "template={{INV}}-{date:yyyy-MM}-{counter:7}{check}\nfirst=1000\n"
                + "max-rate=3\nstep=50\n");
        assertThat(d.compiled().render(LocalDate.of(2026, 11, 1), null).write(1042))
                .startsWith("{INV}-2026-11-0001042").hasSize(22);
    }

    @Test
    void badDefinitions_areRefusedNamingTheProblem() {
        assertThatThrownBy(() -> invoice(SerialPeriod.DAY, "INV-{date:yyyyMMdd}-{count}"))
                .hasMessageContaining("unknown field {count}; fields are {date:PATTERN}, "
                        + "{counter}, {counter:N}, {code:BITS} and {check}");
        assertThatThrownBy(() -> SerialDefinition.newBuilder("invoice").period(SerialPeriod.DAY)
                .template("{date:yyyyMMdd}-{counter:4}").maxRate(1000).build())
                .hasMessageContaining("a counter of width 4 holds values up to 9999, but at "
                        + "max-rate 1000 a second a day can reach 90000000; widen the counter "
                        + "to at least 8 digits");
        assertThatThrownBy(() -> SerialDefinition.parse("invoice",
                "period=day\nzone=Europe/Berlinn\ntemplate={date:yyyyMMdd}{counter}\n"))
                .hasMessageContaining("time zone 'Europe/Berlinn' does not exist");
        assertThatThrownBy(() -> invoice(SerialPeriod.NONE, "{date:yyyy}-{counter}"))
                .hasMessageContaining("a serial with period none has no period date");
        assertThatThrownBy(() -> invoice(SerialPeriod.DAY, "{date:MMdd}-{counter}"))
                .hasMessageContaining("its date fields write the days from 2026-01-01 and "
                        + "2027-01-01 alike");
        assertThatThrownBy(() -> invoice(SerialPeriod.DAY, "{counter}"))
                .hasMessageContaining("repeats its values unless the template has a "
                        + "{date:PATTERN}");
        assertThatThrownBy(() -> invoice(SerialPeriod.DAY, "{date:yyyyMMdd}{counter}{counter}"))
                .hasMessageContaining("has 2 {counter} or {code} fields");
        assertThatThrownBy(() -> invoice(SerialPeriod.DAY, "{date:yyyyMMdd}-{counter"))
                .hasMessageContaining("has no closing '}'");
        assertThatThrownBy(() -> invoice(SerialPeriod.DAY, "{date:yyyyMMdd}-{counter:0}"))
                .hasMessageContaining("counter width '0' must be 1 to 18");
        assertThatThrownBy(() -> invoice(SerialPeriod.DAY, "{date:qqqqqq}-{counter}"))
                .hasMessageContaining("date pattern 'qqqqqq'");
        assertThatThrownBy(() -> SerialPeriod.parse("hour"))
                .hasMessage("period 'hour' is none of none, year, month, week, day");
        assertThatThrownBy(() -> SerialDefinition.newBuilder("a~b"))
                .hasMessageContaining("serial name 'a~b' must be 1 to 48 characters");
        assertThatThrownBy(() -> SerialDefinition.parse("invoice", "period=day\ncolour=red\n"))
                .hasMessageContaining("unknown key 'colour'");
    }

    @Test
    void codeField_writesTheCountersCode_fromTheCodesGiven_orIsRefusedWithout()
            throws Exception {
        ManualTimeSource clock = new ManualTimeSource(at("2026-11-28T12:00:00", BERLIN));
        java.util.List<String> asked = new java.util.ArrayList<>();
        Serials serials = Serials.newBuilder().store(store).timeSource(clock)
                .codes((name, bits) -> {
                    asked.add(name + "/" + bits);
                    return v -> "C" + Long.toString(v + 1_000_000, 36).toUpperCase();
                }).build();
        Serial s = serials.define(SerialDefinition.newBuilder("ticket").period(SerialPeriod.DAY)
                .zone(BERLIN).template("T{date:yyyyMMdd}-{code:30}{check}").build());
        String a = s.next();
        String b = s.next();
        assertThat(a).startsWith("T20261128-C" + Long.toString(1_000_001, 36).toUpperCase());
        assertThat(b).startsWith("T20261128-C" + Long.toString(1_000_002, 36).toUpperCase());
        assertThat(checks(a)).isTrue();
        assertThat(asked).containsExactly("ticket/30");

        Serials without = Serials.newBuilder().store(store).build();
        assertThatThrownBy(() -> without.serial("ticket"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("serial 'ticket' writes {code:30}, the public code of its "
                        + "counter: give Serials the codes");
        assertThatThrownBy(() -> SerialDefinition.newBuilder("t2").period(SerialPeriod.DAY)
                .template("{date:yyyyMMdd}-{code:20}").maxRate(100).build())
                .hasMessageContaining("a code of 20 bits holds values up to 1048575, but at "
                        + "max-rate 100 a second a day can reach 9000000");
        assertThatThrownBy(() -> SerialDefinition.newBuilder("t3").template("{code:19}").build())
                .hasMessageContaining("code bits '19' must be 20 to 63");
    }

    @Test
    void unknownSerial_andAnotherDefinitionOfOne_areRefused() throws Exception {
        Serials serials = Serials.newBuilder().store(store).build();
        assertThatThrownBy(() -> serials.serial("receipt"))
                .isInstanceOf(UnknownTagException.class)
                .hasMessageContaining("serial 'receipt' is not defined");
        serials.define(invoice(SerialPeriod.DAY, "{date:yyyyMMdd}-{counter}"));
        serials.define(invoice(SerialPeriod.DAY, "{date:yyyyMMdd}-{counter}"));
        assertThatThrownBy(() -> serials.define(invoice(SerialPeriod.MONTH,
                "{date:yyyyMM}-{counter}")))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("serial 'invoice' is defined already (in memory), as: "
                        + "period=day");
        assertThat(serials.definitions()).extracting(SerialDefinition::name)
                .containsExactly("invoice");
        assertThat(Serials.newBuilder().store(store).build().serial("invoice").definition()
                .period()).isEqualTo(SerialPeriod.DAY);
    }

    @Test
    void storeDown_isIdUnavailable_andNothingIsIssued() throws Exception {
        Serials serials = Serials.newBuilder().store(store).build();
        Serial s = serials.define(invoice(SerialPeriod.NONE, "{counter}"));
        String first = s.next();
        for (int i = 1; i < 10; i++) {
            s.next();
        }
        store.setAvailable(false);
        assertThatThrownBy(s::next).isInstanceOf(io.idmint.IdUnavailableException.class)
                .hasMessageContaining("serial 'invoice': no range of invoice~all");
        store.setAvailable(true);
        assertThat(s.next()).isEqualTo("11");
        assertThat(first).isEqualTo("1");
    }

    @Test
    void zonedMidnight_isTheZonesNotUtcs() throws Exception {
        ZoneId tokyo = ZoneId.of("Asia/Tokyo");
        long justBefore = ZonedDateTime.of(2026, 11, 28, 23, 59, 59, 0, tokyo).toInstant()
                .toEpochMilli();
        ManualTimeSource clock = new ManualTimeSource(justBefore);
        Serial s = Serials.newBuilder().store(store).timeSource(clock).build().define(
                SerialDefinition.newBuilder("jp").period(SerialPeriod.DAY).zone(tokyo)
                        .template("{date:yyyyMMdd}-{counter}").build());
        assertThat(s.next()).isEqualTo("20261128-1");
        clock.advance(Duration.ofSeconds(1));
        assertThat(s.next()).isEqualTo("20261129-1");
    }
}
