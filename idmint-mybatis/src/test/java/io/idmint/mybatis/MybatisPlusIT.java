package io.idmint.mybatis;

import static org.assertj.core.api.Assertions.assertThat;

import com.baomidou.mybatisplus.annotation.IdType;
import com.baomidou.mybatisplus.annotation.TableId;
import com.baomidou.mybatisplus.annotation.TableName;
import com.baomidou.mybatisplus.core.MybatisConfiguration;
import com.baomidou.mybatisplus.core.MybatisSqlSessionFactoryBuilder;
import com.baomidou.mybatisplus.core.mapper.BaseMapper;
import com.baomidou.mybatisplus.core.toolkit.GlobalConfigUtils;
import io.idmint.IdGenerator;
import io.idmint.IdParts;
import io.idmint.Snowflake;
import io.idmint.WorkerRegistries;
import io.idmint.entity.EntityIds;
import io.idmint.entity.IdmintSegment;
import io.idmint.jdbc.JdbcRangeStores;
import io.idmint.segment.SegmentGenerator;
import io.idmint.segment.Segments;
import io.idmint.spi.RangeStore;
import io.idmint.spi.WorkerRegistry;
import io.idmint.testkit.Together;
import io.idmint.testkit.fixture.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * MyBatis-Plus with idmint, on a real PostgreSQL and without Spring: {@code @TableId(type =
 * ASSIGN_ID)} takes its keys from {@link IdmintIdentifierGenerator} (the generator's leased
 * worker, not MyBatis-Plus's MAC-address guess), and {@link IdmintInterceptor} fills an
 * {@code @IdmintSegment} field beside it, from 8 threads of {@code BaseMapper.insert}.
 */
class MybatisPlusIT {

    private static final int THREADS = 8;
    private static final int ROWS = 2_000;

    @RegisterExtension
    static final PostgresServer pg = PostgresServer.shared();

    @TempDir
    Path dir;

    /** A MyBatis-Plus entity. */
    @TableName("coupon")
    public static class Coupon {
        @TableId(type = IdType.ASSIGN_ID)
        public Long id;
        @IdmintSegment("coupon-number")
        public Long number;
        public String note;
    }

    /** Its mapper: MyBatis-Plus writes the SQL. */
    public interface Coupons extends BaseMapper<Coupon> {
    }

    @Test
    void assignId_isIdmints_andSegmentFieldsAreFilled_fromEightThreads() throws Exception {
        PGSimpleDataSource db = new PGSimpleDataSource();
        db.setURL(pg.url());
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("create table coupon (id bigint primary key, number bigint not null "
                    + "unique, note varchar(50))");
        }
        try (WorkerRegistry registry = WorkerRegistries.local(dir);
             IdGenerator ids = Snowflake.newBuilder().registry(registry).preferredWorkerId(13)
                     .build();
             RangeStore store = JdbcRangeStores.open(db, "mybatis-plus");
             SegmentGenerator segments = Segments.newBuilder().store(store).build()) {
            MybatisConfiguration configuration = new MybatisConfiguration(
                    new Environment("test", new JdbcTransactionFactory(), db));
            GlobalConfigUtils.getGlobalConfig(configuration)
                    .setIdentifierGenerator(new IdmintIdentifierGenerator(ids));
            configuration.addInterceptor(new IdmintInterceptor(EntityIds.newBuilder()
                    .ids(ids).segments(segments).store(store).build()));
            configuration.addMapper(Coupons.class);
            SqlSessionFactory factory = new MybatisSqlSessionFactoryBuilder().build(configuration);

            Together.run(THREADS, () -> {
                try (SqlSession session = factory.openSession(true)) {
                    Coupons coupons = session.getMapper(Coupons.class);
                    for (int i = 0; i < ROWS; i++) {
                        Coupon coupon = new Coupon();
                        coupon.note = "c" + i;
                        coupons.insert(coupon);
                    }
                }
            });

            long total = (long) THREADS * ROWS;
            int worker = ids.status().workerId();
            assertThat(worker).isEqualTo(13);
            long started = System.currentTimeMillis() - 60_000;
            try (Connection c = db.getConnection(); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("select count(distinct id), count(distinct "
                         + "number), max(number) - min(number) + 1 from coupon")) {
                r.next();
                assertThat(r.getLong(1)).isEqualTo(total);
                assertThat(r.getLong(2)).isEqualTo(total);
                assertThat(r.getLong(3)).isEqualTo(total);
            }
            try (Connection c = db.getConnection(); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("select id from coupon")) {
                while (r.next()) {
                    // idmint's worker and epoch: MyBatis-Plus's own keys would decode to
                    // another worker and a time years away.
                    IdParts parts = ids.layout().decode(r.getLong(1));
                    assertThat(parts.workerId()).isEqualTo(worker);
                    assertThat(parts.timestampMillis()).isBetween(started,
                            System.currentTimeMillis());
                }
            }
        }
    }
}
