/// `motion-host plugins list`: lists the plugins found on the search path.
/// - Parameter values: `--plugin-path` (repeating), `--config`, `--format text|json`.
/// - Returns: The exit status.
/// - Throws: ``MotionHostError`` `.notAvailable` in this build.
func runPluginsList(_ values: ParsedValues) throws -> Int32 {
    throw MotionHostError(.notAvailable, "plugins list: not available in this build")
}

/// `motion-host plugins describe PLANTYPE`: the plan type's summary and fields, from its manifest.
/// - Parameter values: The `plan-type` argument, `--plugin-path`, `--config`.
/// - Returns: The exit status.
/// - Throws: ``MotionHostError`` `.notAvailable` in this build.
func runPluginsDescribe(_ values: ParsedValues) throws -> Int32 {
    throw MotionHostError(.notAvailable, "plugins describe: not available in this build")
}

/// `motion-host plugins validate MANIFEST|DIR`: runs each plugin's checks in a child process.
/// - Parameter values: The `path` argument and `--timeout`.
/// - Returns: The exit status (1 when any check fails).
/// - Throws: ``MotionHostError`` `.notAvailable` in this build.
func runPluginsValidate(_ values: ParsedValues) throws -> Int32 {
    throw MotionHostError(.notAvailable, "plugins validate: not available in this build")
}
