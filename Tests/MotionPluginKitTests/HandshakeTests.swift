import CMotionABI
import Testing

/// Every plugin built from this package, with what it must export and the plugin id it announces.
let entryPlugins: [(product: String, id: String)] = [
    ("TweenKit", "org.motion.tweenkit"),
    ("CPerformers", "org.motion.cperformers"),
    ("FixtureTokenMisuse", "org.motion.fixtures.token-misuse"),
    ("FixtureDeviceMotionEcho", "org.motion.fixtures.device-motion-echo"),
    ("FixturePlanProbe", "org.motion.fixtures.plan-probe"),
    ("FixtureCrashOnCreate", "org.motion.fixtures.crash-on-create"),
    ("FixtureHangOnAdd", "org.motion.fixtures.hang-on-add"),
]

@Suite("ABI version handshake and exports")
struct HandshakeTests {
    @Test("The entry returns a complete ABI 1.x interface with the manifest's plugin id", arguments: entryPlugins)
    func entryReturnsInterface(product: String, id: String) throws {
        let plugin = try #require(try PluginLibrary.open(product).callEntry())
        let interface = plugin.interface.pointee
        #expect(plugin.id == id)
        #expect(interface.abi_version >> 16 == UInt32(MOTION_ABI_VERSION_MAJOR))
        #expect(Int(interface.struct_size) == MemoryLayout<motion_plugin_v1>.size)
        #expect(interface.create_performer != nil && interface.destroy_performer != nil)
        #expect(interface.add_plan != nil && interface.add_named_plan != nil)
        #expect(interface.remove_named_plan != nil && interface.get_extension != nil)
    }

    @Test(
        "A host of another ABI major is refused with both versions logged",
        arguments: [("TweenKit", "org.motion.tweenkit"), ("CPerformers", "org.motion.cperformers")])
    func anotherMajorIsRefused(product: String, id: String) throws {
        let library = try PluginLibrary.open(product)
        let refused = try library.callEntry(version: abiVersion(major: 2, minor: 3))
        #expect(refused == nil)
        let lines = FakeHost.logLines(containing: "\(id): refusing to load: the host offers ABI 2.3")
        #expect(lines.count >= 1)
        #expect(lines.first?.message.contains("built against ABI \(MOTION_ABI_VERSION_MAJOR).\(MOTION_ABI_VERSION_MINOR)") == true)
        #expect(lines.first?.level == MOTION_LOG_ERROR)
        // The refusal leaves the plugin usable by a host of the right major.
        #expect(try library.callEntry() != nil)
    }

    @Test("A host of a newer minor is accepted", arguments: ["TweenKit", "CPerformers"])
    func newerMinorIsAccepted(product: String) throws {
        #expect(try PluginLibrary.open(product).callEntry(version: abiVersion(major: 1, minor: 7)) != nil)
    }

    @Test("A host built against ABI 1.0 is accepted", arguments: ["CPerformers", "FixtureTestPerformers"])
    func version10HostIsAccepted(product: String) throws {
        #expect(try PluginLibrary.open(product, instance: "-abi-1.0").callEntry(host: FakeHost.version10Interface) != nil)
    }

    @Test(
        "A host too small for the functions a C plugin calls is refused with both sizes logged",
        arguments: [("CPerformers", "org.motion.cperformers"), ("FixtureTestPerformers", "org.motion.fixtures.test-performers")])
    func tooSmallHostIsRefused(product: String, id: String) throws {
        #expect(try PluginLibrary.open(product, instance: "-truncated").callEntry(host: FakeHost.truncatedInterface) == nil)
        let size = MemoryLayout<motion_host_v1>.offset(of: \.plan_value_json)!
        let lines = FakeHost.logLines(containing: "\(id): refusing to load: the host's motion_host_v1 is \(size) bytes")
        #expect(lines.first?.message.contains("smaller than the \(size + 8) this plugin needs") == true)
        #expect(lines.first?.level == MOTION_LOG_ERROR)
    }

    @Test("A host too small to hold log is refused without a call to log (its size does not cover it)")
    func hostWithoutLogIsRefusedSilently() throws {
        #expect(try PluginLibrary.open("CPerformers", instance: "-tiny").callEntry(host: FakeHost.tinyInterface) == nil)
        // What it would have said: no other test's host has 8 bytes.
        #expect(FakeHost.logLines(containing: "motion_host_v1 is 8 bytes").isEmpty)
    }

    @Test("An ABI 1.0 host (no set_properties) is accepted, and update_many's writes go through set_property")
    func version10Host() throws {
        let plugin = try #require(try PluginLibrary.open("TweenKit", instance: "-abi-1.0").callEntry(host: FakeHost.version10Interface))
        let context = FakeContext(target: "abi-1.0")
        let performer = try #require(plugin.create("TweenPerformer", for: context).0)
        defer { plugin.destroy(performer) }
        #expect(plugin.add(#"{"type":"Tween","property":"x","from":[0],"to":[10],"duration":1,"timing":"linear"}"#, to: performer).0 == MOTION_OK)
        plugin.updateMany([performer], index: 0, time: 0, delta: 0)
        plugin.updateMany([performer], index: 1, time: 0.5, delta: 0.5)
        #expect(context.value("x") == [5])
        #expect(context.state.withLock { ($0.writes, $0.batchedWrites) } == (2, 0))
    }

    @Test("The wrong-major fixture announces ABI 2.0 for the host to refuse")
    func wrongMajorFixture() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureWrongABIMajor").callEntry())
        #expect(plugin.interface.pointee.abi_version == abiVersion(major: 2, minor: 0))
    }

    @Test("The refusing fixture returns NULL after logging why")
    func refusingFixture() throws {
        #expect(try PluginLibrary.open("FixtureRefuses").callEntry() == nil)
        let lines = FakeHost.logLines(containing: "org.motion.fixtures.refuses: refusing to load")
        #expect(lines.first?.message.contains("/dev/motion-hub0") == true)
    }

    @Test("The no-entry fixture has no motion_plugin_entry, only a misspelt one")
    func noEntryFixture() throws {
        let library = try PluginLibrary.open("FixtureNoEntrySymbol")
        #expect(library.entry == nil)
        #expect(library.symbol("motion_plugin_main") != nil)
    }

    @Test(
        "Each library exports only its entry or its declared functions",
        arguments: [
            ("TweenKit", ["motion_plugin_entry"]),
            ("CPerformers", ["motion_plugin_entry"]),
            ("CDeclarative", ["level_blink", "level_create", "level_destroy", "level_set", "level_update"]),
            ("FixtureTokenMisuse", ["motion_plugin_entry"]),
            ("FixtureDeviceMotionEcho", ["motion_plugin_entry"]),
            ("FixturePlanProbe", ["motion_plugin_entry"]),
            ("FixtureCrashOnCreate", ["motion_plugin_entry"]),
            ("FixtureHangOnAdd", ["motion_plugin_entry"]),
            ("FixtureWrongABIMajor", ["motion_plugin_entry"]),
            ("FixtureRefuses", ["motion_plugin_entry"]),
            ("FixtureTestPerformers", ["motion_plugin_entry"]),
            ("FixtureUpdateManyMismatch", ["motion_plugin_entry"]),
            ("FixtureNoEntrySymbol", ["motion_plugin_main"]),
        ])
    func exportsOnlyDeclaredSymbols(product: String, symbols: [String]) throws {
        let library = try PluginLibrary.open(product)
        #expect(try library.exportedSymbols() == symbols)
    }

    @Test("motion_status_name names every status and flags unknown ones")
    func statusNames() {
        #expect(String(cString: motion_status_name(MOTION_OK)) == "MOTION_OK")
        #expect(
            String(cString: motion_status_name(MOTION_ERR_TOKEN_ALREADY_TERMINATED))
                == "MOTION_ERR_TOKEN_ALREADY_TERMINATED")
        #expect(String(cString: motion_status_name(MOTION_ERR_INTERNAL)) == "MOTION_ERR_INTERNAL")
        #expect(String(cString: motion_status_name(-99)) == "MOTION_ERR_UNRECOGNIZED")
        let names = (-12...0).map { String(cString: motion_status_name(Int32($0))) }
        #expect(Set(names).count == 13)
        #expect(!names.contains("MOTION_ERR_UNRECOGNIZED"))
    }

    @Test("motion_error_set truncates at the capacity without splitting a UTF-8 sequence")
    func errorTruncation() {
        var error = makeError()
        let long = String(repeating: "a", count: 510) + "é" + String(repeating: "b", count: 100)
        motion_error_set(&error, MOTION_ERR_INVALID_PLAN, long)
        let text = message(of: error)
        #expect(error.status == MOTION_ERR_INVALID_PLAN)
        #expect(text == String(repeating: "a", count: 510))
        motion_error_set(&error, MOTION_ERR_INTERNAL, "short é")
        #expect(message(of: error) == "short é")
    }
}

/// A packed ABI version, as `MOTION_ABI_VERSION_MAKE` (a function-like macro Swift does not import).
func abiVersion(major: UInt32, minor: UInt32) -> UInt32 { (major << 16) | (minor & 0xFFFF) }
