package io.idmint.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idmint.*} properties: the idmint server's configuration keys, with the same
 * defaults and the same value syntax (durations such as {@code 10ms}, {@code 30s}, {@code 1m}).
 * Values are kept as text and read by {@link IdmintSettings}, so a bad one fails start-up with a
 * message naming the property and the value; {@code idmint.jackson.enabled}, which no server key
 * matches, is a boolean. JavaBean accessors: Spring binds through them.
 */
@ConfigurationProperties("idmint")
public class IdmintProperties {

    /** Worker registry URI: static:, etcd://host:2379/ns, zk://host:2181/ns or jdbc:…. */
    private String registry = "static:";
    /** Directory for local state; the static: registry keeps its workers here. */
    private String dataDir = "./data";
    /** The deployment's name in the registry. */
    private String namespace = "default";
    /**
     * Bit layout: a preset (snowflake, region, instagram, sonyflake, uid-generator, js-safe;
     * with other systems' epochs: leaf, twitter, sonyflake-2014) or fields such as
     * time=41,datacenter=5,worker=5,sequence=12.
     */
    private String layout = "snowflake";
    /** This node's datacenter ID. */
    private String datacenter = "0";
    /**
     * Preferred worker ID, taken when free; ordinal: the N that ends the pod name (POD_NAME,
     * else HOSTNAME, as in a StatefulSet's name-N); without it the registry picks one.
     */
    private String worker;
    /** How many worker IDs to lease and mint from at once, 1 to 1024; auto: one per processor. */
    private String workers = "1";
    private final Clock clock = new Clock();
    private final Sequence sequence = new Sequence();
    private final Lease lease = new Lease();
    private final Segment segment = new Segment();
    private final Codes codes = new Codes();
    private final Jackson jackson = new Jackson();

    public static class Clock {
        /** When the clock steps back past the wait: fail or continue. */
        private String policy = "fail";
        /** How long a caller waits for a clock that is behind, 0 to 10s. */
        private String maxWait = "10ms";
        /**
         * The largest forward step of the wall clock followed at once; larger ones wait for the
         * fleet clock check (or a minute) to confirm them.
         */
        private String maxForwardStep = "1s";
        /**
         * How far this node's clock may be from the fleet's (store clock or other holders'
         * high-water marks) before it takes no worker.
         */
        private String maxSkew = "2s";

        public String getPolicy() {
            return policy;
        }

        public void setPolicy(String policy) {
            this.policy = policy;
        }

        public String getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(String maxWait) {
            this.maxWait = maxWait;
        }

        public String getMaxForwardStep() {
            return maxForwardStep;
        }

        public void setMaxForwardStep(String maxForwardStep) {
            this.maxForwardStep = maxForwardStep;
        }

        public String getMaxSkew() {
            return maxSkew;
        }

        public void setMaxSkew(String maxSkew) {
            this.maxSkew = maxSkew;
        }
    }

    public static class Sequence {
        /** How far ahead of the clock the sequence may borrow when a tick runs out, 0 to 1m. */
        private String maxLead = "0ms";
        /**
         * Where each tick's sequence starts: zero, or random below random-span (spreads id mod N
         * at low rates).
         */
        private String start = "zero";
        /** The span of a random start, 2 to the layout's IDs per tick. */
        private String randomSpan = "16";

        public String getMaxLead() {
            return maxLead;
        }

        public void setMaxLead(String maxLead) {
            this.maxLead = maxLead;
        }

        public String getStart() {
            return start;
        }

        public void setStart(String start) {
            this.start = start;
        }

        public String getRandomSpan() {
            return randomSpan;
        }

        public void setRandomSpan(String randomSpan) {
            this.randomSpan = randomSpan;
        }
    }

    public static class Lease {
        /** How long the registry keeps a claim without renewal. */
        private String ttl = "30s";
        /** How often the lease is renewed; at most a third of the TTL. */
        private String keepalive = "10s";
        /** How long IDs may still be issued after the registry was last reached. */
        private String storeTimeout = "15s";
        /** How far ahead of the clock each reservation of the high-water mark reaches. */
        private String reservation = "10s";

        public String getTtl() {
            return ttl;
        }

        public void setTtl(String ttl) {
            this.ttl = ttl;
        }

        public String getKeepalive() {
            return keepalive;
        }

        public void setKeepalive(String keepalive) {
            this.keepalive = keepalive;
        }

        public String getStoreTimeout() {
            return storeTimeout;
        }

        public void setStoreTimeout(String storeTimeout) {
            this.storeTimeout = storeTimeout;
        }

        public String getReservation() {
            return reservation;
        }

        public void setReservation(String reservation) {
            this.reservation = reservation;
        }
    }

    public static class Segment {
        /** Segment range store URI (jdbc:…, redis://…, etcd://…, zk://…); none: no segments. */
        private String store;
        /** The step of tags created without one. */
        private String step = "1000";
        /** The smallest step adaptation may choose. */
        private String minStep;
        /** The largest step adaptation may choose. */
        private String maxStep;
        /** How long one range should last; the step adapts towards it. */
        private String targetDuration = "1m";
        /** How long a call waits for a range when both buffers are empty. */
        private String fetchTimeout = "1s";
        /** Whether a tag that does not exist yet is created on first use. */
        private String autoCreate = "false";
        /** issue (IDs in call order across threads) or relaxed (per-thread blocks). */
        private String order = "issue";

        public String getStore() {
            return store;
        }

        public void setStore(String store) {
            this.store = store;
        }

        public String getStep() {
            return step;
        }

        public void setStep(String step) {
            this.step = step;
        }

        public String getMinStep() {
            return minStep;
        }

        public void setMinStep(String minStep) {
            this.minStep = minStep;
        }

        public String getMaxStep() {
            return maxStep;
        }

        public void setMaxStep(String maxStep) {
            this.maxStep = maxStep;
        }

        public String getTargetDuration() {
            return targetDuration;
        }

        public void setTargetDuration(String targetDuration) {
            this.targetDuration = targetDuration;
        }

        public String getFetchTimeout() {
            return fetchTimeout;
        }

        public void setFetchTimeout(String fetchTimeout) {
            this.fetchTimeout = fetchTimeout;
        }

        public String getAutoCreate() {
            return autoCreate;
        }

        public void setAutoCreate(String autoCreate) {
            this.autoCreate = autoCreate;
        }

        public String getOrder() {
            return order;
        }

        public void setOrder(String order) {
            this.order = order;
        }
    }

    public static class Codes {
        /** The public codes' AES key, 32 or 64 hex digits; none: no codes codec bean. */
        private String key;
        /** A file holding the key in hex, instead of key. */
        private String keyFile;
        /** The version (0 to 31) codes are encrypted under. */
        private String keyVersion = "1";
        /** Retired keys, still accepted for decoding: version:hex,version:hex. */
        private String oldKeys;
        /**
         * Development only: a random key each start, so codes change on restart and decode
         * nowhere else.
         */
        private String dev = "false";

        public String getOldKeys() {
            return oldKeys;
        }

        public void setOldKeys(String oldKeys) {
            this.oldKeys = oldKeys;
        }

        public String getDev() {
            return dev;
        }

        public void setDev(String dev) {
            this.dev = dev;
        }

        public String getKey() {
            return key;
        }

        public void setKey(String key) {
            this.key = key;
        }

        public String getKeyFile() {
            return keyFile;
        }

        public void setKeyFile(String keyFile) {
            this.keyFile = keyFile;
        }

        public String getKeyVersion() {
            return keyVersion;
        }

        public void setKeyVersion(String keyVersion) {
            this.keyVersion = keyVersion;
        }
    }

    public static class Jackson {
        /**
         * Whether the starter registers idmint's Jackson module (idmint-jackson on Spring Boot 3,
         * idmint-jackson3 on Spring Boot 4), so that IDs are written as JSON strings.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    public String getRegistry() {
        return registry;
    }

    public void setRegistry(String registry) {
        this.registry = registry;
    }

    public String getDataDir() {
        return dataDir;
    }

    public void setDataDir(String dataDir) {
        this.dataDir = dataDir;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public String getLayout() {
        return layout;
    }

    public void setLayout(String layout) {
        this.layout = layout;
    }

    public String getDatacenter() {
        return datacenter;
    }

    public void setDatacenter(String datacenter) {
        this.datacenter = datacenter;
    }

    public String getWorker() {
        return worker;
    }

    public void setWorker(String worker) {
        this.worker = worker;
    }

    public String getWorkers() {
        return workers;
    }

    public void setWorkers(String workers) {
        this.workers = workers;
    }

    public Clock getClock() {
        return clock;
    }

    public Sequence getSequence() {
        return sequence;
    }

    public Lease getLease() {
        return lease;
    }

    public Segment getSegment() {
        return segment;
    }

    public Codes getCodes() {
        return codes;
    }

    public Jackson getJackson() {
        return jackson;
    }
}
