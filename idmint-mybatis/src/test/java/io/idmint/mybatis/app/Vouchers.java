package io.idmint.mybatis.app;

import java.util.List;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** The vouchers' mapper: plain MyBatis SQL, nothing idmint-specific. */
@Mapper
public interface Vouchers {

    @Insert("insert into voucher (id, code, number, note) "
            + "values (#{id}, #{code}, #{number}, #{note})")
    int insert(Voucher voucher);

    @Insert("<script>insert into voucher (id, code, number, note) values "
            + "<foreach collection='list' item='v' separator=','>"
            + "(#{v.id}, #{v.code}, #{v.number}, #{v.note})</foreach></script>")
    int insertAll(@Param("list") List<Voucher> vouchers);

    @Update("update voucher set note = #{note} where id = #{id}")
    int updateNote(Voucher voucher);

    @Select("select id, code, number, note from voucher where id = #{id}")
    Voucher find(long id);
}
