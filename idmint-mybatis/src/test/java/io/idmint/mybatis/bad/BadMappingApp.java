package io.idmint.mybatis.bad;

import io.idmint.entity.IdmintId;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** An application whose insert's parameter has an {@code Integer} key: it must not start. */
@SpringBootApplication
public class BadMappingApp {

    /** A row whose key cannot hold an ID. */
    public static class Crate {
        @IdmintId
        public Integer id;
    }

    /** Its mapper. */
    @Mapper
    public interface Crates {
        @Insert("insert into crate (id) values (#{id})")
        int insert(Crate crate);
    }
}
