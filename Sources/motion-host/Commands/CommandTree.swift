/// The `motion-host` command tree: names, help text and options of every command and subcommand.
enum CommandTree {
    /// The version `--version` prints.
    static let version = "0.1.0"

    /// The root command.
    static let root = CommandSpec(
        name: "motion-host",
        abstract: "Run motion described as data, performed by plugin performers.",
        discussion:
            "Scenes are JSON files of targets and timed transactions; `run` plays one on a simulated clock and writes its timeline.",
        subcommands: [run, serve, plugins, deviceMotion])

    /// `motion-host run`.
    static let run = CommandSpec(
        name: "run",
        abstract: "Run a scene on a simulated clock and write its timeline.",
        discussion:
            "Commits each transaction of the scene at its time, ticks the performers frame by frame and writes, per frame, the properties that changed, plus activity transitions (and with --trace every tracer event). Timeline formats: JSON Lines (default) or CSV; --plot also draws each animated property over time as SVG. Lines reach the output as each frame ends; if a plugin crashes the host or a call into it hangs past --plugin-timeout, the timeline keeps every line so far and ends with an error line naming the plugin, the call and the frame. Exit status: 0 the run completed; 2 it completed, but an isolated plugin failed (its error lines and the summary say which); 1 the run failed (a commit, an emission, an output, a plugin hang); 64 a usage error; 130 or 143 SIGINT or SIGTERM stopped it at a frame boundary (the summary says interrupted); 128 + N a plugin crashed the host with signal N (139 SIGSEGV, 134 SIGABRT).",
        arguments: [ArgumentSpec(name: "scene", help: "The scene file (JSON, sceneVersion 1).")],
        options: [
            .option(
                "plugin-path", value: "dir", help: "A folder to search for plugin manifests first.", repeating: true),
            .option(
                "config", value: "file", help: "The host configuration file.",
                default: "$XDG_CONFIG_HOME/motion/host.json"),
            .option(
                "output", short: "o", value: "file", help: "Write the timeline to this file instead of standard output."
            ),
            .option(
                "format", value: "format", help: "The timeline format; csv when --output ends in .csv.",
                allowed: ["jsonl", "csv"]),
            .option("plot", value: "file.svg", help: "Also draw each animated property over time as an SVG picture."),
            .flag("trace", help: "Write every tracer event to the timeline (jsonl only)."),
            .flag(
                "realtime",
                help:
                    "Pace the frames by the monotonic clock (frame i at start + i/fps); overrun frames are skipped and counted as droppedFrames."
            ),
            .flag(
                "watch",
                help:
                    "With --realtime: reload a plugin whose library or manifest is rebuilt while the run goes on (a reload line in the timeline)."
            ),
            .option("fps", value: "n", help: "Frames per second, overriding the scene's frameRate."),
            .option(
                "duration", value: "s",
                help: "The run length in seconds, or untilIdle, overriding the scene's duration."),
            .option(
                "plugin-timeout", value: "s",
                help:
                    "Seconds one call into a plugin may take before the run is stopped (0: no limit); an isolated plugin's sandbox is killed instead.",
                default: "10"),
            .option(
                "isolate", value: "plugin-id",
                help: "Run this plugin (all: every plugin) in a sandbox process of its own; a crash or hang there ends its performers, not the run.",
                repeating: true),
        ],
        run: RunCommand.run)

    /// `motion-host serve`.
    static let serve = CommandSpec(
        name: "serve",
        abstract: "Run a scene in real time until stopped, with HTTP and WebSocket endpoints and a live view.",
        discussion:
            "Commits the scene's transactions at their real times, then stays up for what comes over the wire: POST /transactions, GET /state, GET /timeline (WebSocket), POST /shutdown, POST /sensorlogger, and the live view at GET /. The first line on standard error is 'listening on http://HOST:PORT'. SIGINT, SIGTERM or POST /shutdown stop it at a frame boundary (summary written, exit 0). Only loopback unless --listen says otherwise; any other address needs --token. Exit status 2 when an isolated plugin failed while it ran (its error lines and the summary say which).",
        arguments: [ArgumentSpec(name: "scene", help: "The scene file (JSON, sceneVersion 1).")],
        options: [
            .option(
                "listen", value: "host:port", help: "Where to listen; port 0 picks a free one.",
                default: ServeCommand.defaultListen),
            .option(
                "token", value: "token",
                help:
                    "Every request but GET / must carry it (Authorization: Bearer, or ?token=); required for a non-loopback address. Default: $MOTION_HOST_TOKEN."
            ),
            .option("output", short: "o", value: "file", help: "Also write the timeline (JSON Lines) to this file."),
            .flag("trace", help: "Write every tracer event to the --output file too."),
            .flag(
                "watch",
                help:
                    "Reload a plugin whose library or manifest is rebuilt, at the next frame, keeping its plans and the targets' values (a reload line in the timeline)."
            ),
            .option(
                "device-motion", value: "source",
                help:
                    "Replace the scene's deviceMotion.recording: sensorlogger (Android) or sensorlogger:ios takes POST /sensorlogger pushes; iio polls the kernel's IIO sensors at 100 Hz (iio:NAME[,NAME] picks devices by name, iio:PATH a devices folder or one device's folder); a recording file plays in real time."
            ),
            .option("fps", value: "n", help: "Frames per second, overriding the scene's frameRate."),
            .option(
                "plugin-path", value: "dir", help: "A folder to search for plugin manifests first.", repeating: true),
            .option(
                "config", value: "file", help: "The host configuration file.",
                default: "$XDG_CONFIG_HOME/motion/host.json"),
            .option(
                "isolate", value: "plugin-id",
                help: "Run this plugin (all: every plugin) in a sandbox process of its own; a crash or hang there ends its performers, not the run.",
                repeating: true),
        ],
        run: ServeCommand.run)

    /// `motion-host plugins`.
    static let plugins = CommandSpec(
        name: "plugins",
        abstract: "List, describe and validate performer plugins.",
        subcommands: [pluginsList, pluginsDescribe, pluginsValidate])

    /// `motion-host plugins list`.
    static let pluginsList = CommandSpec(
        name: "list",
        abstract: "List the plugins on the search path: id, version, library, plan types, and whether each is valid.",
        discussion:
            "Search path: --plugin-path folders, then MOTION_PLUGIN_PATH, the host configuration's searchPaths, $XDG_DATA_HOME/motion/plugins, /usr/local/lib/motion/plugins and /usr/lib/motion/plugins. STATUS says what a run would do: valid, refused (and why), shadowed, disabled.",
        options: [
            .option(
                "plugin-path", value: "dir", help: "A folder to search for plugin manifests first.", repeating: true),
            .option(
                "config", value: "file", help: "The host configuration file.",
                default: "$XDG_CONFIG_HOME/motion/host.json"),
            .option("format", value: "format", help: "The output format.", allowed: ["text", "json"]),
        ],
        run: runPluginsList)

    /// `motion-host plugins describe`.
    static let pluginsDescribe = CommandSpec(
        name: "describe",
        abstract: "Describe a plan type from its manifest: summary and fields with types, units, defaults and ranges.",
        arguments: [ArgumentSpec(name: "plan-type", help: "The plan type, e.g. FadeIn.")],
        options: [
            .option(
                "plugin-path", value: "dir", help: "A folder to search for plugin manifests first.", repeating: true),
            .option(
                "config", value: "file", help: "The host configuration file.",
                default: "$XDG_CONFIG_HOME/motion/host.json"),
        ],
        run: runPluginsDescribe)

    /// `motion-host plugins validate`.
    static let pluginsValidate = CommandSpec(
        name: "validate",
        abstract: "Check plugins in child processes: loading, ABI, performers, plans and tokens.",
        discussion:
            "Each plugin is checked in a child process with a timeout, so a plugin that crashes or hangs is reported, not fatal. One line per check, then a summary; exit status 1 if any check fails.",
        arguments: [ArgumentSpec(name: "path", help: "A manifest file, or a folder of manifests.")],
        options: [
            .option(
                "config", value: "file",
                help: "The host configuration file (library folders, pins), the same one run reads.",
                default: "$XDG_CONFIG_HOME/motion/host.json"),
            .option("timeout", value: "s", help: "Seconds each plugin's checks may take.", default: "10"),
            .option(
                "scan-time-limit", value: "ms",
                help:
                    "The longest scan (library load, entry and ABI checks) the scan time check passes, in milliseconds of wall time; raise it on a busy machine.",
                default: "100"),
            .option(
                "isolate", value: "plugin-id",
                help: "Run this plugin's checks (all: every plugin's) with the plugin in a sandbox process, as a run with --isolate would.",
                repeating: true),
        ],
        run: runPluginsValidate)

    /// `motion-host device-motion`.
    static let deviceMotion = CommandSpec(
        name: "device-motion",
        abstract: "Print a recording's device-motion stream, one Core Motion DeviceMotion sample per line.",
        discussion:
            "Each sample: timestamp (s), attitude quaternion (x, y, z, w), gravity (g), userAcceleration (g), rotationRate (rad/s), magneticField (µT), heading (degrees). Attitude is estimated where the recording holds only raw sensors.",
        arguments: [ArgumentSpec(name: "recording", help: "The recording file (CSV).")],
        options: [
            .option(
                "reference-frame", value: "frame", help: "The attitude reference frame.",
                allowed: DeviceMotionSource.referenceFrames),
            .option("format", value: "format", help: "The output format.", allowed: ["jsonl", "csv"]),
        ],
        run: runDeviceMotion)
}
