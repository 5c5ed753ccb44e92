import Foundation
import Glibc
import Testing

@testable import MotionCore
@testable import MotionHost

/// What the host keeps per performer of a plugin (issue 12: memory per running TweenKit Tween): its proxy and host
/// context, measured as the heap blocks they take (`malloc_usable_size`), in process and isolated.
@Suite("The host's objects per plugin performer")
struct PerformerMemoryTests {
    /// Makes one TweenKit performer through `host` for a target with a 10-byte name (as the benchmark's `card1234`
    /// …) and hands it to `body` while its scheduler lives.
    func withTweenPerformer(isolated: Bool, _ body: (any Performer) throws -> Void) throws {
        let manifest = try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("manifests/tweenkit.json"))
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [manifest]),
            loader: LibraryLoader(
                configuration: HostConfiguration(plugins: isolated ? ["*": .process] : [:]), extraLibraryDirectories: [productsDirectory]))
        let recorder = RecordingRegistry(host)
        let scene = Scene()
        scene.addTarget("card123456", properties: ["x": 0])
        let scheduler = Scheduler(scene: scene, registry: recorder)
        try scheduler.commit(
            Transaction([.add(Plan(type: "Tween", fields: ["property": "x", "to": [1], "duration": 3]), target: "card123456")]))
        scheduler.advanceFrame(to: 0)
        #expect(scheduler.frameUpdatedPerformerCount == 1)
        try body(try #require(recorder.made.first))
    }

    /// The usable bytes of the heap block an object lives in (glibc's `malloc_usable_size`, which `<malloc.h>`
    /// declares and the Glibc module does not import): a block of 16·n bytes has 16·n − 8 usable.
    static func blockBytes(_ object: AnyObject) -> Int {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let usableSize = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size")!, to: UsableSize.self)
        return usableSize(Unmanaged.passUnretained(object).toOpaque())
    }

    @Test(
        "a running in-process TweenKit Tween's proxy and host context take at most 40 + 136 usable bytes (48- and 144-byte heap blocks), with no name copied"
    )
    func inProcessPerformer() throws {
        try withTweenPerformer(isolated: false) { made in
            let performer = try #require(made as? EntryPerformer)
            #expect(Self.blockBytes(performer) <= 40)
            #expect(Self.blockBytes(performer.context) <= 136)
            // The target's name is the target's own (inline, for a short one) until the plugin asks for a C copy.
            #expect(performer.context.targetID == "card123456")
            #expect(String(cString: performer.context.targetName) == "card123456")
            // Every context of the plugin shares one identity.
            #expect(performer.context.identity === performer.plugin.identity)
        }
    }

    @Test("a running isolated TweenKit Tween's proxy and host context take at most 40 + 136 usable bytes (48- and 144-byte heap blocks)")
    func isolatedPerformer() throws {
        try withTweenPerformer(isolated: true) { made in
            let performer = try #require(made as? IsolatedPerformer)
            #expect(Self.blockBytes(performer) <= 40)
            #expect(Self.blockBytes(performer.context) <= 136)
            #expect(performer.context.identity === performer.plugin.members[performer.member].identity)
        }
    }
}

/// A registry that makes its performers through another and keeps each one it made.
private final class RecordingRegistry: PerformerRegistry {
    let inner: any PerformerRegistry
    private(set) var made: [any Performer] = []

    init(_ inner: any PerformerRegistry) { self.inner = inner }

    func performerClass(forPlanType type: String) throws -> PerformerClass? {
        guard let real = try inner.performerClass(forPlanType: type) else { return nil }
        return PerformerClass(name: real.name, origin: real.origin, preparePlan: real.preparePlan, checkPlanOnTarget: real.checkPlanOnTarget) {
            [unowned self] context in
            let performer = try real.make(context)
            made.append(performer)
            return performer
        }
    }

    var planTypes: [String] { inner.planTypes }
}
