package io.idmint.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RouteTest {

    @Test
    void of_exactPaths() {
        assertThat(Route.of("/v1/id")).isEqualTo(Route.LEAN_ID);
        assertThat(Route.of("/v1/ids")).isEqualTo(Route.LEAN_IDS);
        assertThat(Route.of("/v1/id/decode")).isEqualTo(Route.LEAN_DECODE);
        assertThat(Route.of("/api/v1/ids")).isEqualTo(Route.IDS);
        assertThat(Route.of("/api/v1/ids/123")).isEqualTo(Route.ID_PARTS);
        assertThat(Route.of("/api/v1/ids/")).isEqualTo(Route.ID_PARTS);
        assertThat(Route.of("/api/v1/status")).isEqualTo(Route.STATUS);
        assertThat(Route.of("/health/live")).isEqualTo(Route.LIVE);
        assertThat(Route.of("/health/ready")).isEqualTo(Route.READY);
        assertThat(Route.of("/metrics")).isEqualTo(Route.METRICS);
        assertThat(Route.of("/")).isEqualTo(Route.PAGE);
        assertThat(Route.of("/openapi.json")).isEqualTo(Route.OPENAPI);
        assertThat(Route.of("/api/v1/codes")).isEqualTo(Route.CODES);
        assertThat(Route.of("/api/v1/codes/10TV5WV06VX97ET")).isEqualTo(Route.CODE_PARTS);
        assertThat(Route.of("/api/v1/codes/")).isEqualTo(Route.CODE_PARTS);
        assertThat(Route.of("/api/v1/uuids")).isEqualTo(Route.UUIDS);
        assertThat(Route.of("/api/v1/objectids")).isEqualTo(Route.OBJECTIDS);
        assertThat(Route.of("/api/v1/flakes")).isEqualTo(Route.FLAKES);
        assertThat(Route.of("/api/v1/range")).isEqualTo(Route.RANGE);
    }

    @Test
    void of_segmentPaths() {
        assertThat(Route.of("/api/v1/segments")).isEqualTo(Route.SEGMENTS);
        assertThat(Route.of("/api/v1/segments/order/ids")).isEqualTo(Route.SEGMENT_IDS);
        assertThat(Route.segmentTag("/api/v1/segments/order/ids")).isEqualTo("order");
        assertThat(Route.of("/api/v1/segments//ids")).isEqualTo(Route.SEGMENT_IDS);
        assertThat(Route.segmentTag("/api/v1/segments//ids")).isEmpty();
        assertThat(Route.of("/api/segment/get/order")).isEqualTo(Route.LEAF_SEGMENT);
        assertThat(Route.of("/api/snowflake/get/any")).isEqualTo(Route.LEAF_SNOWFLAKE);
    }

    @Test
    void of_anythingElse_isUnmatched() {
        for (String path : new String[] {"", "/v1/id/", "/v1/ids/", "/api/v1/ids/1/2", "/V1/ID",
            "/api/v1/segments/", "/api/v1/segments/ids", "/api/v1/segments/a/b/ids",
            "/api/v1/segments/a/ids/", "/api/v1/segments/a", "/api/segment/get/",
            "/api/segment/get/a/b", "/api/snowflake/get/", "/api/snowflake/get/a/b",
            "/api/v1/codes/a/b", "/api/v1/uuids/", "/metrics/", "//"}) {
            assertThat(Route.of(path)).as(path).isEqualTo(Route.UNMATCHED);
        }
    }

    @Test
    void mintingRoutes_allowOnlyGet() {
        for (Route r : Route.values()) {
            assertThat(r.allow()).as(r.label()).isEqualTo(r.mints() ? "GET"
                    : r.posts() ? "GET, HEAD, POST" : "GET, HEAD");
        }
        assertThat(Route.SEGMENTS.posts()).isTrue();
        assertThat(Route.SEGMENTS.admin()).isTrue();
        assertThat(Route.SEGMENT_IDS.mints()).isTrue();
        assertThat(Route.SEGMENT_IDS.admin()).isFalse();
        assertThat(Route.LEAF_SEGMENT.mints()).isTrue();
        assertThat(Route.LEAF_SNOWFLAKE.mints()).isTrue();
        assertThat(Route.LEAN_ID.mints()).isTrue();
        assertThat(Route.LEAN_DECODE.admin()).isTrue();
        assertThat(Route.ID_PARTS.admin()).isTrue();
        assertThat(Route.IDS.admin()).isFalse();
        assertThat(Route.CODE_PARTS.admin()).isTrue();
        assertThat(Route.CODES.mints()).isTrue();
        assertThat(Route.CODES.admin()).isFalse();
    }
}
