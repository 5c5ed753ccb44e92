import CMotionABI
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Misbehaving and probing fixture plugins")
struct FixturePluginTests {
    @Test("A second terminate comes back to the plugin as MOTION_ERR_TOKEN_ALREADY_TERMINATED, never a trap")
    func secondTerminate() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureTokenMisuse").callEntry())
        let context = FakeContext(target: "misuse-tokens")
        let (created, _, _) = plugin.create("MisusePerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        #expect(plugin.add(#"{"type":"MisuseTokens"}"#, to: performer).0 == MOTION_OK)
        #expect(context.value("secondTerminateStatus") == [Double(MOTION_ERR_TOKEN_ALREADY_TERMINATED)])
        #expect(context.terminatedTokenCount == 1)
        #expect(context.activeTokenCount == 0)
        #expect(context.state.withLock { $0.repeatedTerminates } == 1)
        let lines = FakeHost.logLines(containing: "org.motion.fixtures.token-misuse (misuse-tokens): second terminate")
        #expect(lines.first?.message.contains("MOTION_ERR_TOKEN_ALREADY_TERMINATED") == true)
    }

    @Test("Emitting an undeclared plan type returns the host's status to the plugin")
    func unknownPlanEmission() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureTokenMisuse").callEntry())
        let context = FakeContext(target: "misuse-emission")
        let (created, _, _) = plugin.create("MisusePerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        context.router.withLock { $0 = addRouter([:]) }
        #expect(plugin.add(#"{"type":"EmitUnknownPlan"}"#, to: performer).0 == MOTION_OK)
        #expect(context.value("emissionStatus") == [Double(MOTION_ERR_UNKNOWN_PLAN_TYPE)])
        let emitted = try #require(context.emitted.first)
        let plan = operations(of: emitted).first?["plan"] as? [String: Any]
        #expect(plan?["type"] as? String == "NoSuchPlan")
        #expect(operations(of: emitted).first?["target"] as? String == "misuse-emission")
    }

    /// A sample with distinct values in every field.
    func sample(structSize: Int = MemoryLayout<motion_device_motion_sample>.size) -> motion_device_motion_sample {
        var sample = motion_device_motion_sample()
        sample.struct_size = UInt32(structSize)
        sample.timestamp = 12.5
        (sample.attitude_x, sample.attitude_y, sample.attitude_z, sample.attitude_w) = (0, 0, 0.6, 0.8)
        (sample.gravity_x, sample.gravity_y, sample.gravity_z) = (0, -1, 0)
        (sample.rotation_rate_x, sample.rotation_rate_y, sample.rotation_rate_z) = (0.1, 0.2, 0.3)
        (sample.magnetic_field_x, sample.magnetic_field_y, sample.magnetic_field_z) = (20, -5, 40)
        sample.magnetic_field_accuracy = MOTION_MAGNETIC_FIELD_ACCURACY_HIGH
        sample.reference_frame = MOTION_REFERENCE_FRAME_X_MAGNETIC_NORTH_Z_VERTICAL
        sample.heading = 90
        return sample
    }

    @Test("Device-motion samples reach a DeviceMotionReceiving performer field by field")
    func deviceMotionEcho() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureDeviceMotionEcho").callEntry())
        let receive = try #require(plugin.deviceMotion?.pointee.receive)
        #expect(plugin.frames == nil)
        let context = FakeContext(target: "echo-full")
        let (created, _, _) = plugin.create("EchoPerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        var full = sample()
        receive(performer, &full)
        #expect(context.value("gravity") == [0, -1, 0])
        #expect(context.value("rotationRate") == [0.1, 0.2, 0.3])
        #expect(context.value("attitude") == [0, 0, 0.6, 0.8])
        #expect(context.value("heading") == [90])
        #expect(context.value("referenceFrame") == [4])
        #expect(context.value("timestamp") == [12.5])
        receive(performer, &full)
        #expect(context.value("samples") == [2])
        #expect(context.value("outOfOrder") == [0])
        full.timestamp = 12.25  // before the previous sample's
        receive(performer, &full)
        #expect(context.value("samples") == [3])
        #expect(context.value("outOfOrder") == [1])
        #expect(context.value("timestamp") == [12.25])
    }

    @Test("A sample from an older host (smaller struct_size) is read only as far as its size covers")
    func deviceMotionOlderHost() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureDeviceMotionEcho").callEntry())
        let receive = try #require(plugin.deviceMotion?.pointee.receive)
        let context = FakeContext(target: "echo-older")
        let (created, _, _) = plugin.create("EchoPerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        let covered = try #require(MemoryLayout<motion_device_motion_sample>.offset(of: \.magnetic_field_x))
        var older = sample(structSize: covered)
        receive(performer, &older)
        #expect(context.value("rotationRate") == [0.1, 0.2, 0.3])
        #expect(context.value("heading") == [0])  // beyond the size: read as zero, not as the 90 in memory
        #expect(context.value("referenceFrame") == [0])
    }

    @Test("The crash fixture's create_performer dies of SIGSEGV (run in a child process)")
    func crashOnCreate() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureCrashOnCreate").callEntry())
        let context = FakeContext(target: "crash")
        let create = try #require(plugin.interface.pointee.create_performer)
        let handle = context.handle
        let pid = fork()
        if pid == 0 {
            // Die of the signal itself: no Swift backtracer (it would outlive the child and hold the
            // test's output pipe open, notably under sanitizers).
            signal(SIGSEGV, SIG_DFL)
            var error = makeError()
            _ = create("Crasher", "crash", handle, &error)
            _exit(0)
        }
        #expect(pid > 0)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(status & 0x7F == SIGSEGV)  // WTERMSIG
    }

    @Test("The hang fixture's add_plan does not return (run in a child process, then killed)")
    func hangOnAdd() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureHangOnAdd").callEntry())
        let context = FakeContext(target: "hang")
        let (created, _, _) = plugin.create("Hanger", for: context)
        let performer = try #require(created)
        let add = try #require(plugin.interface.pointee.add_plan)
        let pid = fork()
        if pid == 0 {
            var error = makeError()
            _ = add(performer, "{}", 2, &error)
            _exit(0)
        }
        #expect(pid > 0)
        var status: Int32 = 0
        var exited = false
        for _ in 0..<20 where !exited {
            usleep(50_000)
            exited = waitpid(pid, &status, WNOHANG) == pid
        }
        #expect(!exited, "add_plan returned: the fixture no longer hangs")
        if !exited {
            kill(pid, SIGKILL)
            #expect(waitpid(pid, &status, 0) == pid)
            #expect(status & 0x7F == SIGKILL)
        }
        plugin.destroy(performer)
    }
}

@Suite("Tokens terminated from plugin-owned threads")
struct WorkerThreadTests {
    /// Waits (bounded) until `condition` holds; the bound only keeps a broken build from hanging.
    func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<2000 {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }

    @Test("A token terminated on a plugin thread reaches the host (R36)")
    func terminateOnWorker() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureTokenMisuse").callEntry())
        let context = FakeContext(target: "worker-live")
        let (created, _, _) = plugin.create("WorkerPerformer", for: context)
        let performer = try #require(created)
        defer { plugin.destroy(performer) }
        #expect(plugin.add(#"{"type":"TerminateOnWorker","delay":0}"#, to: performer).0 == MOTION_OK)
        #expect(eventually { context.terminatedTokenCount == 1 })
        #expect(context.activeTokenCount == 0)
        #expect(eventually { !FakeHost.logLines(containing: "(worker-live): worker terminated").isEmpty })
        #expect(
            FakeHost.logLines(containing: "(worker-live): worker terminated").first?.message.hasSuffix("MOTION_OK")
                == true)
    }

    @Test(
        "After destroy_performer, a plugin thread's terminate reports MOTION_ERR_SCHEDULER_GONE and never uses the context"
    )
    func terminateAfterDestroy() throws {
        let plugin = try #require(try PluginLibrary.open("FixtureTokenMisuse").callEntry())
        let context = FakeContext(target: "worker-destroyed")
        let (created, _, _) = plugin.create("WorkerPerformer", for: context)
        let performer = try #require(created)
        #expect(plugin.add(#"{"type":"TerminateOnWorker","afterDestroy":true}"#, to: performer).0 == MOTION_OK)
        plugin.destroy(performer)
        context.markDestroyed()
        #expect(eventually { !FakeHost.logLines(containing: "(worker-destroyed): worker terminated").isEmpty })
        let line = FakeHost.logLines(containing: "(worker-destroyed): worker terminated").first?.message ?? ""
        #expect(line.hasSuffix("MOTION_ERR_SCHEDULER_GONE"))
        #expect(context.state.withLock { $0.usesAfterDestroy } == 0)
    }
}
