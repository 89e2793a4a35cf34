package io.idmint.etcd;

import static io.idmint.etcd.EtcdStore.bytes;
import static io.idmint.etcd.EtcdStore.string;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.idmint.spi.Range;
import io.idmint.spi.RangeStore;
import io.idmint.spi.RegistryException;
import io.idmint.spi.RegistryException.Kind;
import io.idmint.spi.TagInfo;
import io.idmint.spi.UnknownTagException;
import io.idmint.spi.support.TagValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A {@link RangeStore} on etcd: one key per tag ({@link EtcdKeys#segment}) holding
 * {@code "<next> <step>"} as decimal text: the start of the tag's next range and the step it was
 * created with. An allocation reads the key and writes {@code next + size} in a
 * {@code Txn} that compares the key's {@code mod_revision} with the one read; a lost race
 * retries with the value the failed {@code Txn} read back, so every attempt is one round trip
 * and every lost attempt is another client's committed allocation.
 */
final class EtcdRangeStore implements RangeStore {

    /**
     * Lost races in a row before giving up with UNAVAILABLE; each loss is another client's
     * allocation. Eight clients hammering one tag lost up to 64 in a row in tests; a node's
     * generator allocates a tag once per range, so real contention is far lower.
     */
    static final int MAX_ATTEMPTS = 1_000;

    private final EtcdStore store;
    private final EtcdKeys keys;

    EtcdRangeStore(EtcdStore store, String prefix) {
        this.store = store;
        this.keys = new EtcdKeys(prefix);
    }

    @Override
    public Range allocate(String tag, long size) throws RegistryException {
        TagValue.checkAllocation(tag, size);
        String key = keys.segment(tag);
        KeyValue kv = first(store.get(key).getKvs());
        for (int attempt = 1; ; attempt++) {
            if (kv == null) {
                throw new UnknownTagException(tag, "segment tag '" + tag + "' does not exist "
                        + "(etcd key " + key + ")");
            }
            TagValue now = parse(kv);
            TagValue after = now.allocate(tag, size);
            TxnResponse t = store.txn("allocation of " + (after.next() - now.next())
                    + " from segment tag " + tag,
                    new Cmp[] {new Cmp(bytes(key), Cmp.Op.EQUAL,
                            CmpTarget.modRevision(kv.getModRevision()))},
                    new Op[] {Op.put(bytes(key), bytes(after.text()), PutOption.DEFAULT)},
                    new Op[] {Op.get(bytes(key), GetOption.DEFAULT)});
            if (t.isSucceeded()) {
                return new Range(now.next(), after.next());
            }
            if (attempt == MAX_ATTEMPTS) {
                throw new RegistryException(Kind.UNAVAILABLE, "lost " + attempt + " races for "
                        + "segment tag '" + tag + "' in a row; retry later");
            }
            kv = first(t.getGetResponses().get(0).getKvs());
        }
    }

    @Override
    public void create(String tag, long start, long step) throws RegistryException {
        TagValue first = TagValue.created(tag, start, step);
        String key = keys.segment(tag);
        TxnResponse t = store.txn("creation of segment tag " + tag,
                new Cmp[] {new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.createRevision(0))},
                new Op[] {Op.put(bytes(key), bytes(first.text()),
                        PutOption.DEFAULT)},
                new Op[0]);
        if (!t.isSucceeded()) {
            throw new RegistryException(Kind.CONFLICT, "segment tag '" + tag + "' exists "
                    + "already (etcd key " + key + ")");
        }
    }

    @Override
    public List<TagInfo> tags() throws RegistryException {
        String dir = keys.segments();
        List<TagInfo> out = new ArrayList<>();
        for (KeyValue kv : store.getPrefix(dir).getKvs()) {
            TagValue v = parse(kv);
            out.add(new TagInfo(string(kv.getKey()).substring(dir.length()), v.next(), v.step()));
        }
        out.sort(Comparator.comparing(TagInfo::tag));
        return out;
    }

    @Override
    public void define(String name, String definition) throws RegistryException {
        TagValue.checkDefinition(name, definition);
        String key = keys.serial(name);
        TxnResponse t = store.txn("definition of serial " + name,
                new Cmp[] {new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.createRevision(0))},
                new Op[] {Op.put(bytes(key), bytes(definition), PutOption.DEFAULT)},
                new Op[] {Op.get(bytes(key), GetOption.DEFAULT)});
        if (t.isSucceeded()) {
            return;
        }
        KeyValue kv = first(t.getGetResponses().get(0).getKvs());
        TagValue.requireSameDefinition(name, definition,
                kv == null ? null : string(kv.getValue()), "etcd key " + key);
    }

    @Override
    public String definition(String name) throws RegistryException {
        KeyValue kv = first(store.get(keys.serial(name)).getKvs());
        return kv == null ? null : string(kv.getValue());
    }

    @Override
    public java.util.SortedMap<String, String> definitions() throws RegistryException {
        String dir = keys.serials();
        java.util.SortedMap<String, String> out = new java.util.TreeMap<>();
        for (KeyValue kv : store.getPrefix(dir).getKvs()) {
            out.put(string(kv.getKey()).substring(dir.length()), string(kv.getValue()));
        }
        return out;
    }

    @Override
    public void close() {
        store.close();
    }

    private static TagValue parse(KeyValue kv) throws RegistryException {
        return TagValue.parse(string(kv.getValue()), "etcd key " + string(kv.getKey()));
    }

    private static KeyValue first(List<KeyValue> kvs) {
        return kvs.isEmpty() ? null : kvs.get(0);
    }
}
