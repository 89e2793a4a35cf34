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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

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

    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private final EtcdStore store;
    private final EtcdKeys keys;

    EtcdRangeStore(EtcdStore store, String prefix) {
        this.store = store;
        this.keys = new EtcdKeys(prefix);
    }

    @Override
    public Range allocate(String tag, long size) throws RegistryException {
        if (size < 0) {
            throw new IllegalArgumentException("range size must not be negative, got " + size);
        }
        String key = key(tag);
        KeyValue kv = first(store.get(key).getKvs());
        for (int attempt = 1; ; attempt++) {
            if (kv == null) {
                throw new UnknownTagException(tag, "segment tag '" + tag + "' does not exist "
                        + "(etcd key " + key + ")");
            }
            Stored now = Stored.of(kv);
            long n = size == TAG_STEP ? now.step() : size;
            if (now.next() > Long.MAX_VALUE - n) {
                throw new RegistryException(Kind.CORRUPT, "segment tag '" + tag + "' at "
                        + now.next() + " cannot take " + n + " more values without overflow");
            }
            Stored after = new Stored(now.next() + n, now.step());
            TxnResponse t = store.txn("allocation of " + n + " from segment tag " + tag,
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
        if (start < 0) {
            throw new IllegalArgumentException("segment start must be >= 0, got " + start);
        }
        if (step < 1 || step > MAX_STEP) {
            throw new IllegalArgumentException("segment step must be between 1 and 2^40, got "
                    + step);
        }
        String key = key(tag);
        TxnResponse t = store.txn("creation of segment tag " + tag,
                new Cmp[] {new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.createRevision(0))},
                new Op[] {Op.put(bytes(key), bytes(new Stored(start, step).text()),
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
            Stored v = Stored.of(kv);
            out.add(new TagInfo(string(kv.getKey()).substring(dir.length()), v.next(), v.step()));
        }
        out.sort(Comparator.comparing(TagInfo::tag));
        return out;
    }

    @Override
    public void close() {
        store.close();
    }

    private String key(String tag) {
        if (tag == null || !TAG.matcher(tag).matches()) {
            throw new IllegalArgumentException("segment tag '" + tag + "' must be 1 to 64 of "
                    + "A-Z a-z 0-9 . _ -");
        }
        return keys.segment(tag);
    }

    /** A tag's value: {@code "<next> <step>"}, decimal, the start of its next range first. */
    private record Stored(long next, long step) {

        String text() {
            return next + " " + step;
        }

        static Stored of(KeyValue kv) throws RegistryException {
            String s = string(kv.getValue());
            String[] parts = s.split(" ", -1);
            try {
                if (parts.length == 2) {
                    Stored v = new Stored(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
                    if (v.next() >= 0 && v.step() >= 1 && v.step() <= MAX_STEP) {
                        return v;
                    }
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new RegistryException(Kind.CORRUPT, "etcd key " + string(kv.getKey())
                    + " holds '" + s + "', not a segment tag's '<next> <step>'");
        }
    }

    private static KeyValue first(List<KeyValue> kvs) {
        return kvs.isEmpty() ? null : kvs.get(0);
    }
}
