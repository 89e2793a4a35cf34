package io.idmint.mybatis;

import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import io.idmint.IdGenerator;

/**
 * MyBatis-Plus's ID source for {@code @TableId(type = IdType.ASSIGN_ID)}: one {@code nextId()}
 * of the application's {@link IdGenerator} per entity, in place of MyBatis-Plus's own Snowflake
 * (whose worker comes from the host's MAC address and process ID, with no lease: two hosts can
 * collide). MyBatis-Plus stores it in a {@code Long} or {@code String} key. The Spring Boot
 * starter registers it; without Spring Boot, {@code
 * GlobalConfigUtils.getGlobalConfig(configuration).setIdentifierGenerator(new
 * IdmintIdentifierGenerator(ids))}. {@code ASSIGN_UUID} keeps MyBatis-Plus's random UUIDs.
 */
public final class IdmintIdentifierGenerator implements IdentifierGenerator {

    private final IdGenerator ids;

    /** IDs from {@code ids}. */
    public IdmintIdentifierGenerator(IdGenerator ids) {
        this.ids = ids;
    }

    @Override
    public Number nextId(Object entity) {
        return ids.nextId();
    }
}
