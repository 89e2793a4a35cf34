package io.idmint.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idmint.FencedUuidV7;
import io.idmint.IdCodec;
import io.idmint.Layout;
import io.idmint.formats.TypeId;
import io.idmint.server.harness.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI's codes and other formats: {@code next --format code}, {@code --kind}, decode. */
public class CodesCliTest {

    public static final String KEY = "2b7e151628aed2a6abf7158809cf4f3c";
    static final String KEY2 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    @TempDir
    Path data;

    private Cli.Result run(String... args) {
        return Cli.run(Map.of(), args);
    }

    @Test
    void nextCode_thenDecode_roundTripsToTheIds() {
        Cli.Result ids = run("next", "-n", "200", "--data-dir", data.toString());
        Cli.Result codes = run("next", "-n", "200", "--format", "code", "--codes-key", KEY,
                "--data-dir", data.toString());

        assertThat(codes.exitCode()).as(codes.err()).isZero();
        assertThat(codes.err()).isEmpty();
        List<String> lines = codes.lines();
        assertThat(lines).hasSize(200).allMatch(c -> c.matches("1[0-9A-HJKMNP-TV-Z]{14}"));
        assertThat(new HashSet<>(lines)).hasSize(200);

        Cli.Result decoded = run(concat(new String[] {"decode", "--codes-key", KEY}, lines));
        assertThat(decoded.exitCode()).as(decoded.err()).isZero();
        long lastPlainId = Long.parseLong(ids.lines().get(199));
        long prev = lastPlainId;
        for (int i = 0; i < 200; i++) {
            String line = decoded.lines().get(i);
            assertThat(line).startsWith("{\"code\":\"" + lines.get(i) + "\",\"key_version\":1,"
                    + "\"id\":\"");
            long id = Long.parseLong(line.replaceAll(".*\"id\":\"(\\d+)\".*", "$1"));
            assertThat(id).isGreaterThan(prev);
            prev = id;
        }
    }

    @Test
    void decode_codeGroupedLowercaseWithLookalikes_readsTheSame() {
        String code = run("next", "--format", "code", "--codes-key", KEY, "--data-dir",
                data.toString()).out().strip();
        String grouped = (code.substring(0, 5) + "-" + code.substring(5, 10) + "-"
                + code.substring(10)).toLowerCase(Locale.ROOT).replace('0', 'o').replace('1', 'l');

        Cli.Result a = run("decode", "--codes-key", KEY, code);
        Cli.Result b = run("decode", "--codes-key", KEY, grouped);
        Cli.Result c = run("decode", "--codes-key", KEY, "--kind", "code", code);

        assertThat(a.exitCode()).as(a.err()).isZero();
        assertThat(b.out()).isEqualTo(a.out());
        assertThat(c.out()).isEqualTo(a.out());
    }

    @Test
    void decode_codeWithAWrongSymbol_exits2NamingItAndPrintsNothing() {
        String code = run("next", "--format", "code", "--codes-key", KEY, "--data-dir",
                data.toString()).out().strip();
        char last = code.charAt(14);
        String bad = code.substring(0, 14) + (last == 'A' ? 'B' : 'A');

        Cli.Result r = run("decode", "--codes-key", KEY, bad);

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains(bad).doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void decode_codeWithAnotherKey_isRefusedOrGivesAnotherId() {
        String code = run("next", "--format", "code", "--codes-key", KEY, "--data-dir",
                data.toString()).out().strip();

        Cli.Result wrongVersion = run("decode", "--codes-key", KEY2, "--codes-key-version", "2",
                code);

        assertThat(wrongVersion.exitCode()).isEqualTo(2);
        assertThat(wrongVersion.err()).contains("version");
    }

    @Test
    void rotation_oldKeyStillDecodes_newCodesUseTheNewVersion() {
        String oldCode = run("next", "--format", "code", "--codes-key", KEY, "--data-dir",
                data.toString()).out().strip();
        Map<String, String> env = Map.of("IDMINT_CODES_KEY", KEY2, "IDMINT_CODES_KEY_VERSION",
                "2", "IDMINT_CODES_OLD_KEYS", "1:" + KEY);

        Cli.Result newCode = Cli.run(env, "next", "--format", "code", "--data-dir",
                data.toString());
        Cli.Result decoded = Cli.run(env, "decode", oldCode, newCode.out().strip());

        assertThat(newCode.out()).startsWith("2");
        assertThat(decoded.exitCode()).as(decoded.err()).isZero();
        assertThat(decoded.lines().get(0)).contains("\"key_version\":1");
        assertThat(decoded.lines().get(1)).contains("\"key_version\":2");
    }

    @Test
    void keyFile_isRead() throws Exception {
        Path file = data.resolve("codes.key");
        Files.writeString(file, KEY + "\n");

        Cli.Result a = run("next", "--format", "code", "--codes-key-file", file.toString(),
                "--data-dir", data.toString());
        Cli.Result b = run("decode", "--codes-key", KEY, a.out().strip());

        assertThat(a.exitCode()).as(a.err()).isZero();
        assertThat(b.exitCode()).as(b.err()).isZero();
    }

    @Test
    void devMode_warnsLoudlyAndWorks_butCannotDecode() {
        Cli.Result r = run("next", "-n", "3", "--format", "code", "--codes-dev", "true",
                "--data-dir", data.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.err()).contains("WARNING").contains("codes.dev").contains("RANDOM key")
                .contains("production");
        assertThat(r.lines()).hasSize(3);

        Cli.Result d = Cli.run(Map.of("IDMINT_CODES_DEV", "true"), "decode",
                r.lines().get(0));
        assertThat(d.exitCode()).isEqualTo(2);
        assertThat(d.err()).contains("codes.key");
    }

    @Test
    void decode_codeWithoutAKey_exits2NamingTheKeys() {
        Cli.Result r = run("decode", "10TV5-WV06V-X97ET");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("codes.key").contains("codes.key-file");
    }

    @Test
    void badKey_exits2WithoutEchoingIt() {
        String bad = KEY.substring(0, 31) + "g";
        Cli.Result r = run("next", "--format", "code", "--codes-key", bad, "--data-dir",
                data.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("codes.key").contains("hex").doesNotContain(bad);
    }

    @Test
    void keyAndKeyFile_together_exit2() throws Exception {
        Path file = data.resolve("codes.key");
        Files.writeString(file, KEY + "\n");
        Cli.Result r = run("next", "--format", "code", "--codes-key", KEY, "--codes-key-file",
                file.toString(), "--data-dir", data.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("not both");
    }

    @Test
    void config_neverPrintsKeys() {
        Cli.Result r = Cli.run(Map.of("IDMINT_CODES_KEY", KEY, "IDMINT_CODES_OLD_KEYS",
                "3:" + KEY2), "config");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).doesNotContain(KEY).doesNotContain(KEY2)
                .containsPattern("codes\\.key +\\(hidden\\)");
    }

    @Test
    void nextUuid7_printsUniqueIncreasingVersion7Uuids() {
        Cli.Result r = run("next", "-n", "10000", "--kind", "uuid7");

        assertThat(r.exitCode()).as(r.err()).isZero();
        List<String> lines = r.lines();
        assertThat(lines).hasSize(10_000);
        String prev = "";
        for (String line : lines) {
            assertThat(line).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                    + "[0-9a-f]{12}");
            assertThat(UUID.fromString(line).version()).isEqualTo(7);
            assertThat(line).isGreaterThan(prev);
            prev = line;
        }
    }

    @Test
    void nextFencedUuid7_carriesTheLeasedIds_increasing_andDecodesToThem() {
        Cli.Result r = run("next", "-n", "10000", "--kind", "fenced-uuid7", "--data-dir",
                data.toString());
        Cli.Result after = run("next", "--data-dir", data.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        List<String> lines = r.lines();
        assertThat(lines).hasSize(10_000).isSorted();
        long prev = 0;
        for (String line : lines) {
            long id = FencedUuidV7.idOf(UUID.fromString(line), Layout.SNOWFLAKE);
            assertThat(id).isGreaterThan(prev);
            prev = id;
        }
        assertThat(Long.parseLong(after.out().strip())).as("one worker's IDs").isGreaterThan(prev);

        String last = lines.get(lines.size() - 1);
        String typeId = new TypeId("user", UUID.fromString(last)).toString();
        Cli.Result d = run("decode", "--kind", "fenced-uuid7", last, typeId);
        assertThat(d.exitCode()).as(d.err()).isZero();
        assertThat(d.lines().get(0)).startsWith("{\"kind\":\"fenced-uuid7\",\"value\":\"" + last
                + "\",\"id\":\"" + prev + "\",\"timestamp_ms\":")
                .endsWith("\"datacenter_id\":0,\"worker_id\":0,\"sequence_number\":"
                        + Layout.SNOWFLAKE.decode(prev).sequence() + "}");
        assertThat(d.lines().get(1)).isEqualTo(d.lines().get(0));
        assertThat(DecodeCommand.kindOf(typeId)).isEqualTo("uuid7");
    }

    @Test
    void nextFencedUuid7_badUse_exits2NamingIt() {
        Cli.Result format = run("next", "--kind", "fenced-uuid7", "--format", "hex");
        Cli.Result layout = run("next", "--kind", "fenced-uuid7", "--layout",
                "time=48,sequence=12", "--data-dir", data.toString());
        Cli.Result notV7 = run("decode", "--kind", "fenced-uuid7",
                "f47ac10b-58cc-4372-a567-0e02b2c3d479");
        Cli.Result offTick = run("decode", "--kind", "fenced-uuid7", "--layout", "sonyflake",
                "0196f2a1-0003-7000-8000-000000000000");

        assertThat(format.exitCode()).isEqualTo(2);
        assertThat(format.err()).contains("--format applies to --kind snowflake only");
        assertThat(layout.exitCode()).isEqualTo(2);
        assertThat(layout.err()).contains("--kind fenced-uuid7: layout time=48,sequence=12,"
                + "tick=1ms,epoch=2026-01-01T00:00:00Z has times a UUIDv7 cannot hold");
        assertThat(layout.out()).isEmpty();
        assertThat(notV7.exitCode()).isEqualTo(2);
        assertThat(notV7.err()).contains("is not a UUIDv7: version 4");
        assertThat(offTick.exitCode()).isEqualTo(2);
        assertThat(offTick.err()).contains("is no fenced UUID of layout sonyflake");
    }

    @Test
    void nextObjectId_printsUnique24HexDigits() {
        Cli.Result r = run("next", "-n", "10000", "--kind", "objectid");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.lines()).hasSize(10_000).allMatch(l -> l.matches("[0-9a-f]{24}"));
        assertThat(new HashSet<>(r.lines())).hasSize(10_000);
    }

    @Test
    void nextFlake128_printsUniqueIncreasing32HexDigits() {
        Cli.Result r = run("next", "-n", "10000", "--kind", "flake128", "--flake-worker",
                "02:42:ac:11:00:02");

        assertThat(r.exitCode()).as(r.err()).isZero();
        List<String> lines = r.lines();
        assertThat(lines).hasSize(10_000).allMatch(l -> l.matches("[0-9a-f]{32}"));
        assertThat(lines).isSorted();
        assertThat(new HashSet<>(lines)).hasSize(10_000);
        assertThat(lines.get(0).substring(16, 28)).isEqualTo("0242ac110002");
    }

    @Test
    void nextFlake128_withoutAWorker_exits2NamingTheKey() {
        Cli.Result r = run("next", "--kind", "flake128");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("flake.worker");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void next_formatWithAnotherKind_orAnUnknownKind_exits2() {
        Cli.Result a = run("next", "--kind", "uuid7", "--format", "hex");
        Cli.Result b = run("next", "--kind", "uuid4");

        assertThat(a.exitCode()).isEqualTo(2);
        assertThat(a.err()).contains("--format").contains("snowflake");
        assertThat(b.exitCode()).isEqualTo(2);
        assertThat(b.err()).contains("uuid4");
    }

    @Test
    void decode_eachKindByShape() {
        String uuid = run("next", "--kind", "uuid7").out().strip();
        String oid = run("next", "--kind", "objectid").out().strip();
        String flake = run("next", "--kind", "flake128", "--flake-worker", "7").out().strip();
        String id = run("next", "--data-dir", data.toString()).out().strip();

        Cli.Result r = run("decode", uuid, oid, flake, id, "0x" + IdCodec.HEX.format(
                Long.parseLong(id)));

        assertThat(r.exitCode()).as(r.err()).isZero();
        List<String> lines = r.lines();
        assertThat(lines.get(0)).startsWith("{\"kind\":\"uuid7\",\"value\":\"" + uuid
                + "\",\"timestamp_ms\":");
        assertThat(lines.get(1)).startsWith("{\"kind\":\"objectid\",\"value\":\"" + oid + "\"")
                .contains("\"random\":\"" + oid.substring(8, 18) + "\"").contains("\"counter\":");
        assertThat(lines.get(2)).startsWith("{\"kind\":\"flake128\",\"value\":\"" + flake + "\"")
                .contains("\"worker_id\":7,");
        assertThat(lines.get(3)).startsWith("{\"id\":\"" + id + "\"");
        assertThat(lines.get(4)).isEqualTo(lines.get(3));
        long now = System.currentTimeMillis();
        for (int i = 0; i < 3; i++) {
            long ms = Long.parseLong(lines.get(i).replaceAll(".*\"timestamp_ms\":(\\d+).*", "$1"));
            assertThat(ms).isBetween(now - 60_000, now + 1000);
        }
    }

    @Test
    void decode_forcedKind_rejectsOtherShapes() {
        Cli.Result r = run("decode", "--kind", "uuid7", "0123456789abcdef01234567");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("0123456789abcdef01234567").contains("UUID");
    }

    @Test
    void kindOf_shapesDoNotCollide() {
        assertThat(DecodeCommand.kindOf("0190b8a2-7c3e-7a4b-9f3e-0123456789ab")).isEqualTo("uuid7");
        assertThat(DecodeCommand.kindOf("65a1b2c3d4e5f60718293a4b")).isEqualTo("objectid");
        assertThat(DecodeCommand.kindOf("0000018f2b3c4d5e0242ac1100020001"))
                .isEqualTo("flake128");
        assertThat(DecodeCommand.kindOf("10TV5WV06VX97ET")).isEqualTo("code");
        assertThat(DecodeCommand.kindOf("10TV5-WV06V-X97ET")).isEqualTo("code");
        assertThat(DecodeCommand.kindOf("123456789012345")).isEqualTo("snowflake");
        assertThat(DecodeCommand.kindOf("7269841635818741761")).isEqualTo("snowflake");
        assertThat(DecodeCommand.kindOf("0x64e3a1b2c3d4e5f6")).isEqualTo("snowflake");
        assertThat(DecodeCommand.kindOf("0CJ4R5GH8Z1KA")).isEqualTo("snowflake");
        assertThat(DecodeCommand.kindOf("-1")).isEqualTo("snowflake");
    }

    private static String[] concat(String[] a, List<String> b) {
        String[] out = new String[a.length + b.size()];
        System.arraycopy(a, 0, out, 0, a.length);
        for (int i = 0; i < b.size(); i++) {
            out[a.length + i] = b.get(i);
        }
        return out;
    }

}
