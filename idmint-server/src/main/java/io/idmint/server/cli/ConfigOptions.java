package io.idmint.server.cli;

import io.idmint.server.config.Config;
import io.idmint.server.config.Config.Key;
import io.idmint.server.config.Config.Setting;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The {@code --config FILE} flag and one flag per configuration key, built from the key table so
 * that a key, its flag, its environment variable and its help text never drift apart.
 */
public final class ConfigOptions {

    static final String CONFIG_FLAG = "--config";

    private ConfigOptions() {
    }

    /** Adds {@code --config} and a flag for each key as a mixin of the command. */
    public static CommandLine addTo(CommandLine command, List<Key<?>> keys) {
        CommandSpec mixin = CommandSpec.wrapWithoutInspection(null, IdmintCommand.FACTORY);
        mixin.addOption(OptionSpec.builder(CONFIG_FLAG).paramLabel("FILE").type(String.class)
                .description("Java properties file with any of the keys below (also env "
                        + Config.CONFIG_ENV + ")")
                .build());
        for (Key<?> key : keys) {
            mixin.addOption(OptionSpec.builder(key.flag()).paramLabel(key.valueLabel())
                    .type(String.class)
                    .description(key.description() + (key.defaultValue() == null ? "" :
                            " (default: " + key.defaultValue() + ")") + "; env " + key.envVar())
                    .build());
        }
        command.addMixin("config", mixin);
        return command;
    }

    /** Resolves the configuration from the command's flags, the environment and the file. */
    public static Config load(CommandSpec command, Map<String, String> env) {
        return load(command, env, Map.of());
    }

    /** As {@link #load(CommandSpec, Map)}, with values given as arguments rather than flags. */
    public static Config load(CommandSpec command, Map<String, String> env, Map<Key<?>,
            Setting> args) {
        Map<Key<?>, Setting> flags = new LinkedHashMap<>();
        for (Key<?> key : Config.keys()) {
            OptionSpec option = command.findOption(key.flag());
            String value = option == null ? null : option.getValue();
            Setting arg = args.get(key);
            if (value != null && arg != null) {
                throw new CommandLine.ParameterException(command.commandLine(), "give "
                        + key.name() + " either as " + arg.source() + " or as " + key.flag()
                        + ", not both");
            }
            if (arg != null) {
                flags.put(key, arg);
            } else if (value != null) {
                flags.put(key, new Setting(value, "flag " + key.flag()));
            }
        }
        OptionSpec config = command.findOption(CONFIG_FLAG);
        Config loaded = Config.load(flags, env, config == null ? null : config.getValue());
        loaded.warnings().forEach(w -> command.commandLine().getErr().println("idmint: warning: "
                + w));
        return loaded;
    }
}
