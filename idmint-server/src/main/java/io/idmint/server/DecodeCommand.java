package io.idmint.server;

import io.idmint.IdCodec;
import io.idmint.IdParts;
import io.idmint.Layout;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code idmint decode ID...}: each ID's parts as one JSON object per line. */
@Command(name = "decode", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Prints each ID's parts as one JSON object per line.",
            "Fields: {\"id\":\"…\",\"timestamp_ms\":…,\"timestamp\":\"ISO-8601\","
                    + "\"datacenter_id\":…,\"worker_id\":…,\"sequence_number\":…}",
            "and \"shard_id\" when the layout has a shard field.",
            "Prints nothing when any ID is bad."})
final class DecodeCommand implements Callable<Integer> {

    private final Invocation invocation;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "ID",
            description = "decimal, 0x hex, or 13 Crockford base32 symbols")
    List<String> inputs;

    DecodeCommand(Invocation invocation) {
        this.invocation = invocation;
    }

    @Override
    public Integer call() {
        Layout layout = ConfigOptions.load(spec, invocation.env()).get(Config.LAYOUT);
        List<IdParts> decoded = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (String input : inputs) {
            try {
                decoded.add(decode(layout, input));
            } catch (IllegalArgumentException e) {
                errors.add(e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(String.join(System.lineSeparator() + "idmint: ",
                    errors));
        }
        PrintWriter out = spec.commandLine().getOut();
        boolean shard = layout.bits(Layout.Field.SHARD) > 0;
        for (IdParts p : decoded) {
            out.print(json(p, shard));
            out.print('\n');
        }
        out.flush();
        return Main.OK;
    }

    private static IdParts decode(Layout layout, String input) {
        long id = IdCodec.parseAny(input);
        try {
            return layout.decode(id);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + input + "': " + e.getMessage(), e);
        }
    }

    static String json(IdParts p, boolean withShard) {
        Json json = new Json()
                .add("id", Long.toString(p.id()))
                .add("timestamp_ms", p.timestampMillis())
                .add("timestamp", p.timestamp().toString())
                .add("datacenter_id", p.datacenterId())
                .add("worker_id", p.workerId());
        if (withShard) {
            json.add("shard_id", p.shardId());
        }
        return json.add("sequence_number", p.sequence()).toString();
    }
}
