package io.idmint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.FencedUuidV7;
import io.idmint.IdParts;
import io.idmint.Layout;
import io.idmint.TypedId;
import io.idmint.codes.CodeCodec;
import io.idmint.codes.Codes;
import io.idmint.codes.Keys;
import io.idmint.formats.TypeId;
import io.idmint.formats.UuidV7;
import io.idmint.server.cli.CodesCliTest;
import io.idmint.server.harness.Http;
import io.idmint.server.harness.TestServers;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Codes, UUIDv7s, ObjectIds and 128-bit flakes over HTTP, on real in-process servers: one
 * configured (key, flake worker), one with nothing configured, one with tokens.
 */
class CodesHttpIT {

    private static final String KEY = CodesCliTest.KEY;
    private static final CodeCodec CODEC = Codes.newBuilder().key(1, Keys.fromHex(KEY)).build();
    private static final String MALFORMED_CODE = "urn:idmint:problem:malformed-code";
    private static final String NOT_CONFIGURED = "urn:idmint:problem:not-configured";
    private static final String BAD_PARAMETER = "urn:idmint:problem:bad-parameter";
    private static final String MALFORMED_ID = "urn:idmint:problem:malformed-id";

    @TempDir
    static Path data;

    private static Server server;
    private static Server bare;
    private static Server secured;
    private static Http http;
    private static Http bareHttp;
    private static Http securedHttp;

    @BeforeAll
    static void start() {
        server = TestServers.start(data.resolve("a"), "codes.key=" + KEY,
                "flake.worker=02:42:ac:11:00:02");
        bare = TestServers.start(data.resolve("b"));
        secured = TestServers.start(data.resolve("c"), "codes.key=" + KEY, "auth.token=api",
                "auth.admin-token=admin");
        http = new Http(server.httpPort());
        bareHttp = new Http(bare.httpPort());
        securedHttp = new Http(secured.httpPort());
    }

    @AfterAll
    static void stop() {
        for (Server s : new Server[] {server, bare, secured}) {
            if (s != null) {
                s.close();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Http.Response r, String name) {
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("application/json");
        assertThat(r.header("cache-control")).isEqualTo("no-store");
        assertThat(r.json().keySet()).containsExactly(name);
        return (List<String>) r.json().get(name);
    }

    @Test
    void codes_countDefaultsToOne_andAre15Symbols() {
        List<String> codes = list(http.get("/api/v1/codes"), "codes");

        assertThat(codes).hasSize(1);
        assertThat(codes.get(0)).matches("1[0-9A-HJKMNP-TV-Z]{14}");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 1000, 10_000})
    void codes_count_areUniqueAndDecodeToIncreasingIdsOfThisServer(int count) {
        List<String> codes = list(http.get("/api/v1/codes?count=" + count), "codes");

        assertThat(codes).hasSize(count);
        assertThat(new HashSet<>(codes)).hasSize(count);
        long prev = 0;
        for (String c : codes) {
            long id = CODEC.decode(c);
            assertThat(id).isGreaterThan(prev);
            assertThat(Layout.SNOWFLAKE.decode(id).workerId()).isZero();
            prev = id;
        }
    }

    @Test
    void codeParts_hasTheCodeVersionAndTheIdsParts() {
        String code = list(http.get("/api/v1/codes"), "codes").get(0);
        long id = CODEC.decode(code);
        IdParts p = Layout.SNOWFLAKE.decode(id);

        Http.Response r = http.get("/api/v1/codes/" + code);

        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"code\":\"" + code + "\",\"key_version\":1,"
                + "\"value_string\":\"" + id + "\",\"value_hex\":\"" + String.format("%016x", id)
                + "\",\"breakdown\":{\"timestamp_ms\":" + p.timestampMillis()
                + ",\"datacenter_id\":0,\"worker_id\":0,\"sequence_number\":" + p.sequence()
                + "}}");
    }

    @Test
    void codeParts_groupedLowercase_isReadAndShownCanonical() {
        String code = list(http.get("/api/v1/codes"), "codes").get(0);
        String grouped = (code.substring(0, 5) + "-" + code.substring(5, 10) + "-"
                + code.substring(10)).toLowerCase(Locale.ROOT);

        Http.Response r = http.get("/api/v1/codes/" + grouped);

        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().get("code")).isEqualTo(code);
    }

    @Test
    void codeParts_badCodes_are400NamingTheProblem() {
        String code = list(http.get("/api/v1/codes"), "codes").get(0);
        String wrongCheck = code.substring(0, 14) + (code.charAt(14) == 'A' ? 'B' : 'A');
        String swapped = code.substring(0, 5) + code.charAt(6) + code.charAt(5)
                + code.substring(7);
        String otherVersion = "7" + code.substring(1);

        for (String bad : new String[] {wrongCheck, "ABC", code + "0", "1UUUUUUUUUUUUUU"}) {
            assertProblem(http.get("/api/v1/codes/" + bad), 400, MALFORMED_CODE, bad);
        }
        if (code.charAt(5) != code.charAt(6)) {
            assertProblem(http.get("/api/v1/codes/" + swapped), 400, MALFORMED_CODE, "check");
        }
        Http.Response v = http.get("/api/v1/codes/" + otherVersion);
        assertThat(v.status()).isEqualTo(400);
        assertThat(v.body()).contains(MALFORMED_CODE);
        assertProblem(http.get("/api/v1/codes/"), 400, "urn:idmint:problem:bad-parameter",
                "missing code");
    }

    @Test
    void codes_badCount_is400AndMintsNothing() {
        long before = CODEC.decode(list(http.get("/api/v1/codes"), "codes").get(0));
        for (String q : new String[] {"0", "10001", "-1", "x"}) {
            Http.Response r = http.get("/api/v1/codes?count=" + q);
            assertProblem(r, 400, "urn:idmint:problem:bad-parameter", "count");
        }
        long after = CODEC.decode(list(http.get("/api/v1/codes"), "codes").get(0));
        assertThat(after).isGreaterThan(before);
    }

    @Test
    void codes_head_isNotAllowed() {
        Http.Response r = http.send("HEAD", "/api/v1/codes");
        assertThat(r.status()).isEqualTo(405);
        assertThat(r.header("allow")).isEqualTo("GET");
    }

    @Test
    void uuids_areUniqueIncreasingVersion7() {
        List<String> uuids = list(http.get("/api/v1/uuids?count=1000"), "uuids");

        assertThat(uuids).hasSize(1000).isSorted();
        assertThat(new HashSet<>(uuids)).hasSize(1000);
        long now = System.currentTimeMillis();
        for (String u : uuids) {
            assertThat(UuidV7.timestampMillis(UuidV7.parse(u))).isBetween(now - 60_000, now + 1);
        }
    }

    @Test
    void fencedUuids_carryIncreasingIdsOfThisServersWorker_andSortAsThem() {
        List<String> uuids = list(http.get("/api/v1/fenced-uuids?count=10000"), "uuids");

        assertThat(uuids).hasSize(10_000).isSorted();
        long prev = 0;
        for (String text : uuids) {
            UUID u = UuidV7.parse(text);
            long id = FencedUuidV7.idOf(u, Layout.SNOWFLAKE);
            assertThat(id).isGreaterThan(prev);
            assertThat(FencedUuidV7.decode(u, Layout.SNOWFLAKE).workerId()).isZero();
            assertThat(UuidV7.timestampMillis(u)).isEqualTo(Layout.SNOWFLAKE.decode(id)
                    .timestampMillis());
            prev = id;
        }
        // One ID sequence: a fenced UUID's ID is above the IDs minted before it.
        long before = Long.parseLong((String) ((List<?>) http.get("/v1/ids?count=3").json()
                .get("ids")).get(2));
        String after = list(http.get("/api/v1/fenced-uuids"), "uuids").get(0);
        assertThat(FencedUuidV7.idOf(UuidV7.parse(after), Layout.SNOWFLAKE))
                .isGreaterThan(before).isGreaterThan(prev);
    }

    @Test
    void decode_readsTheIdAFencedUuidOrItsTypeIdCarries() {
        String text = list(http.get("/api/v1/fenced-uuids"), "uuids").get(0);
        UUID u = UuidV7.parse(text);
        long id = FencedUuidV7.idOf(u, Layout.SNOWFLAKE);
        String typeId = new TypeId("user", u).toString();

        assertThat(http.get("/v1/id/decode?id=" + text).json().get("id"))
                .isEqualTo(Long.toString(id));
        assertThat(http.get("/v1/id/decode?id=" + typeId).json().get("id"))
                .isEqualTo(Long.toString(id));
        assertThat(http.get("/api/v1/ids/" + typeId).json().get("value_string"))
                .isEqualTo(Long.toString(id));
        // A v4 UUID, a TypeID suffix above 7, a UUID of no tick of this layout: 400 naming it.
        assertProblem(http.get("/v1/id/decode?id=f47ac10b-58cc-4372-a567-0e02b2c3d479"), 400,
                MALFORMED_ID, "is not a UUIDv7: version 4");
        assertProblem(http.get("/v1/id/decode?id=user_8zzzzzzzzzzzzzzzzzzzzzzzzz"), 400,
                MALFORMED_ID, "user_8zzzzzzzzzzzzzzzzzzzzzzzzz");
        assertProblem(http.get("/v1/id/decode?id=00000000-0001-7000-8000-000000000000"), 400,
                MALFORMED_ID, "is no fenced UUID of layout snowflake");
    }

    @Test
    void fencedUuids_withPrefix_areTypeIdsOfThoseUuids() {
        List<String> typed = list(http.get("/api/v1/fenced-uuids?count=100&prefix=order_line"),
                "uuids");

        assertThat(typed).hasSize(100).isSorted()
                .allMatch(t -> t.matches("order_line_0[0-9a-z]{25}"));
        for (String t : typed) {
            TypeId parsed = TypeId.parse(t, "order_line");
            assertThat(FencedUuidV7.decode(parsed.uuid(), Layout.SNOWFLAKE).workerId()).isZero();
        }
    }

    @Test
    void typedIds_arePrefixedIdsOfThisServer_increasing() {
        List<String> typed = list(http.get("/api/v1/typed-ids?count=1000&prefix=ord"), "ids");

        assertThat(typed).hasSize(1000).isSorted().allMatch(t -> t.matches("ord_[0-9a-z]{13}"));
        long prev = 0;
        for (String t : typed) {
            long id = TypedId.parse(t, "ord").id();
            assertThat(id).isGreaterThan(prev);
            prev = id;
        }
        // The typed form is read wherever an ID is.
        assertThat(http.get("/v1/id/decode?id=" + typed.get(0)).json().get("id"))
                .isEqualTo(Long.toString(TypedId.parse(typed.get(0)).id()));
    }

    @Test
    void badPrefixOrCount_is400NamingIt() {
        assertProblem(http.get("/api/v1/typed-ids?count=3"), 400, BAD_PARAMETER,
                "missing prefix: give the type prefix, such as prefix=ord");
        assertProblem(http.get("/api/v1/typed-ids?prefix=Ord"), 400, BAD_PARAMETER,
                "type prefix 'Ord' has 'O': only lowercase letters a-z and '_' may be in a "
                        + "prefix");
        assertProblem(http.get("/api/v1/fenced-uuids?prefix=" + "a".repeat(64)), 400,
                BAD_PARAMETER, "has 64 characters, more than 63");
        assertProblem(http.get("/api/v1/fenced-uuids?prefix=_ord"), 400, BAD_PARAMETER,
                "starts or ends with '_'");
        assertProblem(http.get("/api/v1/fenced-uuids?count=0"), 400, BAD_PARAMETER,
                "count must be from 1 to 10000, got 0");
        assertProblem(http.get("/api/v1/fenced-uuids?size=3"), 400, BAD_PARAMETER, "size");
        assertThat(http.send("HEAD", "/api/v1/fenced-uuids").status()).isEqualTo(405);
        assertThat(http.send("HEAD", "/api/v1/typed-ids?prefix=ord").status()).isEqualTo(405);
    }

    @Test
    void serialWithACodeField_writesItsCountersCodes_decodableWithTheKeyAndTheSerial() {
        Http.Response defined = http.send("POST", "/api/v1/serials",
                java.net.http.HttpRequest.BodyPublishers.ofString("{\"name\":\"ticket\","
                        + "\"template\":\"TKT-{code:30}\"}"), "Content-Type", "application/json");
        assertThat(defined.status()).as(defined.body()).isEqualTo(201);

        @SuppressWarnings("unchecked")
        List<String> values = (List<String>) http.get("/api/v1/serials/ticket?count=50").json()
                .get("values");
        CodeCodec tickets = Codes.newBuilder().key(1, Keys.fromHex(KEY)).bits(30)
                .tweak("ticket".getBytes(java.nio.charset.StandardCharsets.UTF_8)).build();
        assertThat(values).hasSize(50).allMatch(v -> v.matches("TKT-1[0-9A-HJKMNP-TV-Z]{7}"));
        for (int i = 0; i < values.size(); i++) {
            assertThat(tickets.decode(values.get(i).substring(4))).isEqualTo(i + 1);
        }

        // Without a code key such a serial is refused, naming the keys, and not defined.
        Http.Response refused = bareHttp.send("POST", "/api/v1/serials",
                java.net.http.HttpRequest.BodyPublishers.ofString("{\"name\":\"ticket\","
                        + "\"template\":\"TKT-{code:30}\"}"), "Content-Type", "application/json");
        assertProblem(refused, 503, NOT_CONFIGURED, "codes.key");
        assertThat(bareHttp.get("/api/v1/serials").body()).doesNotContain("ticket");
    }

    @Test
    void objectIds_areUnique24Hex() {
        List<String> ids = list(http.get("/api/v1/objectids?count=1000"), "objectids");

        assertThat(ids).hasSize(1000).allMatch(s -> s.matches("[0-9a-f]{24}"));
        assertThat(new HashSet<>(ids)).hasSize(1000);
    }

    @Test
    void flakes_areUniqueIncreasing32HexWithTheWorker() {
        List<String> flakes = list(http.get("/api/v1/flakes?count=1000"), "flakes");

        assertThat(flakes).hasSize(1000).isSorted().allMatch(s -> s.matches("[0-9a-f]{32}"));
        assertThat(new HashSet<>(flakes)).hasSize(1000);
        assertThat(flakes.get(0).substring(16, 28)).isEqualTo("0242ac110002");
    }

    @Test
    void notConfigured_codesAndFlakes_are503NamingTheKeys() {
        assertProblem(bareHttp.get("/api/v1/codes"), 503, NOT_CONFIGURED, "codes.key");
        assertProblem(bareHttp.get("/api/v1/codes?count=0"), 503, NOT_CONFIGURED,
                "codes.key-file");
        assertProblem(bareHttp.get("/api/v1/codes/10TV5WV06VX97ET"), 503, NOT_CONFIGURED,
                "codes.dev");
        assertProblem(bareHttp.get("/api/v1/flakes"), 503, NOT_CONFIGURED, "flake.worker");
        assertThat(bareHttp.get("/api/v1/codes").header("retry-after")).isNull();
        // What needs no configuration works.
        assertThat(list(bareHttp.get("/api/v1/uuids"), "uuids")).hasSize(1);
        assertThat(list(bareHttp.get("/api/v1/objectids"), "objectids")).hasSize(1);
        assertThat(bareHttp.get("/v1/id").status()).isEqualTo(200);
    }

    @Test
    void auth_codesNeedATokenAndDecodingTheAdminToken() {
        assertThat(securedHttp.get("/api/v1/codes").status()).isEqualTo(401);
        List<String> codes = list(securedHttp.get("/api/v1/codes", "Authorization",
                "Bearer api"), "codes");
        String path = "/api/v1/codes/" + codes.get(0);

        assertThat(securedHttp.get(path).status()).isEqualTo(401);
        assertProblem(securedHttp.get(path, "Authorization", "Bearer api"), 403, "about:blank",
                "admin");
        assertThat(securedHttp.get(path, "Authorization", "Bearer admin").status())
                .isEqualTo(200);
        assertThat(securedHttp.get("/api/v1/uuids", "Authorization", "Bearer api").status())
                .isEqualTo(200);
        assertThat(securedHttp.get("/api/v1/uuids").status()).isEqualTo(401);
        assertThat(securedHttp.get("/api/v1/fenced-uuids").status()).isEqualTo(401);
        assertThat(securedHttp.get("/api/v1/typed-ids?prefix=ord").status()).isEqualTo(401);
        assertThat(securedHttp.get("/api/v1/fenced-uuids", "Authorization", "Bearer api")
                .status()).isEqualTo(200);
    }

    private static void assertProblem(Http.Response r, int status, String type, String detail) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.header("content-type")).isEqualTo("application/problem+json");
        Map<String, Object> json = r.json();
        assertThat(json.get("type")).isEqualTo(type);
        assertThat(((Number) json.get("status")).intValue()).isEqualTo(status);
        assertThat((String) json.get("detail")).contains(detail);
    }
}
