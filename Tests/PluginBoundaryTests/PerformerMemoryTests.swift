import Foundation
import Glibc
import Testing

@testable import MotionCore
@testable import MotionHost

/// What the host keeps per performer of a plugin (issue 12: memory per running TweenKit Tween): its proxy, measured as
/// the heap block it takes (`malloc_usable_size`), and its host context's table entry, in process and isolated.
@Suite("The host's objects per plugin performer")
struct PerformerMemoryTests {
    /// Makes eight TweenKit performers through `host`, one per target with a 10-byte name (as the benchmark's
    /// `card1234` …), and hands them to `body` while their scheduler lives.
    func withTweenPerformers(isolated: Bool, _ body: ([any Performer]) throws -> Void) throws {
        try withPerformers(
            manifest: "tweenkit.json", isolated: isolated, plan: Plan(type: "Tween", fields: ["property": "x", "to": [1], "duration": 3])
        ) { made, scheduler in
            scheduler.advanceFrame(to: 0)
            #expect(scheduler.frameUpdatedPerformerCount == 8)
            try body(made)
        }
    }

    /// Makes eight performers of the plugin of `manifest` (in manifests/) through a host, one per target with a 10-byte
    /// name, each given `plan` on property `x`, and hands them and their scheduler to `body`.
    func withPerformers(manifest name: String, isolated: Bool = false, plan: Plan, _ body: ([any Performer], Scheduler) throws -> Void)
        throws
    {
        let manifest = try PluginManifest.load(contentsOf: packageRoot.appendingPathComponent("manifests/\(name)"))
        let host = PluginHost(
            catalog: PluginCatalog(plugins: [manifest]),
            loader: LibraryLoader(
                configuration: HostConfiguration(plugins: isolated ? ["*": .process] : [:]), extraLibraryDirectories: [productsDirectory]))
        let recorder = RecordingRegistry(host)
        let scene = Scene()
        let targets = (0..<8).map { TargetID("card12345\($0)") }
        for target in targets { scene.addTarget(target, properties: ["x": 0]) }
        let scheduler = Scheduler(scene: scene, registry: recorder)
        try scheduler.commit(Transaction(targets.map { .add(plan, target: $0) }))
        #expect(recorder.made.count == 8)
        try body(recorder.made, scheduler)
    }

    /// The smallest of the usable sizes of the objects' heap blocks: glibc may hand out a block a size class larger
    /// than asked for when the rest would be too small to keep (a heap that many tests used), never a smaller one.
    static func blockBytes(_ objects: [AnyObject]) -> Int { objects.map { blockBytes($0) }.min() ?? 0 }

    /// The usable bytes of the heap block an object lives in (glibc's `malloc_usable_size`, which `<malloc.h>`
    /// declares and the Glibc module does not import): a block of 16·n bytes has 16·n − 8 usable.
    static func blockBytes(_ object: AnyObject) -> Int { blockBytes(Unmanaged.passUnretained(object).toOpaque()) }

    /// The usable bytes of the heap block at `address` (the start of a block `malloc` gave).
    static func blockBytes(_ address: UnsafeMutableRawPointer) -> Int {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let usableSize = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size")!, to: UsableSize.self)
        return usableSize(address)
    }

    @Test(
        "a running in-process TweenKit Tween's proxy takes at most 24 usable bytes (a 32-byte heap block), its host context a 72-byte table entry whose group its plugin's performers on the scheduler share, and the SDK's record of it (the motion_performer *) at most 56 usable bytes, with no name copied and its token an id"
    )
    func inProcessPerformer() throws {
        try withTweenPerformers(isolated: false) { made in
            let performers = try made.map { try #require($0 as? EntryPerformer) }
            // The proxy holds its context's handle alone (it was 40 bytes: the plugin and its performer too).
            #expect(Self.blockBytes(performers) <= 24)
            // The context is a handle into the host's table (no heap block of its own; it was a 144-byte block).
            #expect(MemoryLayout<HostContext>.size == 8)
            #expect(HostContext.entryBytes <= 72)
            // The eight contexts share one group (plugin, scheduler thread, scene).
            #expect(performers.allSatisfy { $0.context.groupIndex == performers[0].context.groupIndex })
            #expect(performers.allSatisfy { $0.plugin === performers[0].plugin })
            // The SDK's record of a performer, whose address is the plugin's motion_performer *: its context, 40
            // bytes and the object's header (it was 104, a 112-byte block).
            #expect(Self.blockBytes(UnsafeMutableRawPointer(performers[0].performer)) <= 56)
            // Its token is held by id: no 48-byte token object per running Tween.
            #expect(performers.allSatisfy { $0.context.heldTokenObjectCount == 0 })
            // The target's name is the target's own until the plugin asks for a C copy.
            #expect(performers[0].context.targetID == "card123450")
            #expect(String(cString: performers[0].context.targetName) == "card123450")
            // Every context of the plugin shares one identity.
            #expect(performers.allSatisfy { $0.context.identity === performers[0].plugin.identity })
        }
    }

    @Test(
        "a running isolated TweenKit Tween's proxy takes at most 40 usable bytes (a 48-byte heap block) and its host context an 88-byte table entry"
    )
    func isolatedPerformer() throws {
        try withTweenPerformers(isolated: true) { made in
            let performers = try made.map { try #require($0 as? IsolatedPerformer) }
            #expect(Self.blockBytes(performers) <= 40)
            #expect(MemoryLayout<HostContext>.size == 8)
            #expect(performers.allSatisfy { $0.context.identity === $0.plugin.members[$0.member].identity })
        }
    }
}

extension PerformerMemoryTests {
    @Test("the host contexts of a declarative C class's performers on one scheduler share one group and one identity")
    func declarativePerformersShareAGroup() throws {
        try withPerformers(manifest: "cdeclarative.json", plan: Plan(type: "SetLevel", fields: ["property": "x", "level": 0.5])) {
            made, _ in
            let performers = try made.map { try #require($0 as? DeclarativePerformer) }
            #expect(performers.allSatisfy { $0.context.groupIndex == performers[0].context.groupIndex })
            #expect(performers.allSatisfy { $0.context.identity === performers[0].context.identity })
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
        return PerformerClass(
            name: real.name, origin: real.origin, preparePlan: real.preparePlan, checkPlanOnTarget: real.checkPlanOnTarget,
            preparePlanOnTarget: real.preparePlanOnTarget
        ) { [unowned self] context in
            let performer = try real.make(context)
            made.append(performer)
            return performer
        }
    }

    var planTypes: [String] { inner.planTypes }
}
