import CMotionABI
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A plugin library opened from the products directory with `dlopen(RTLD_NOW | RTLD_LOCAL)`, as the
/// host opens it. Never closed (closing a library with Swift code in it breaks the process).
///
/// `@unchecked Sendable`: the handle is only used with dlsym, which is thread-safe.
struct PluginLibrary: @unchecked Sendable {
    let name: String
    let path: String
    let handle: UnsafeMutableRawPointer

    /// The directory of the running test binary, where SwiftPM puts the built `.so` products.
    static let productsDirectory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (executable as NSString).deletingLastPathComponent
    }()

    /// Opens `lib<product>.so`, through a private copy: a plugin binds to the first host that calls its
    /// entry, and other suites in this test process load the same products into the real host
    /// (MotionHost). A copy is a separate file, so `dlopen` maps a separate instance with its own state.
    /// Each product is copied and opened once per process.
    /// - Parameter instance: another name opens another copy (an instance whose entry can be given a
    ///   different host without disturbing the tests that use the first).
    static func open(_ product: String, instance: String = "") throws -> PluginLibrary {
        // An NSLock (a pthread mutex), not Synchronization's Mutex: Thread Sanitizer (.ci/tsan) cannot see the
        // futex-based Mutex of the uninstrumented toolchain library and reports the guarded accesses as races.
        openedLock.lock()
        defer { openedLock.unlock() }
        if let library = opened[product + instance] { return library }
        let path = "\(productsDirectory)/lib\(product).so"
        let copy = "\(privateDirectory)/lib\(product)\(instance).so"
        try? FileManager.default.removeItem(atPath: copy)
        do {
            try FileManager.default.copyItem(atPath: path, toPath: copy)
        } catch {
            throw LoadFailure(description: "cannot copy \(path): \(error). To fix, build the products first.")
        }
        guard let handle = dlopen(copy, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown"
            throw LoadFailure(description: "dlopen \(copy) failed: \(reason). To fix, build the products first.")
        }
        let library = PluginLibrary(name: product, path: path, handle: handle)
        opened[product + instance] = library
        return library
    }

    private static let openedLock = NSLock()
    // Guarded by openedLock.
    nonisolated(unsafe) private static var opened: [String: PluginLibrary] = [:]
    private static let privateDirectory: String = {
        let directory = NSTemporaryDirectory() + "motion-plugin-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }()

    struct LoadFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// A symbol's address, or nil.
    func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(handle, name) }

    /// The entry point, or nil when the library does not export `motion_plugin_entry`.
    var entry: motion_plugin_entry_fn? {
        symbol(MOTION_PLUGIN_ENTRY_SYMBOL).map { unsafeBitCast($0, to: motion_plugin_entry_fn.self) }
    }

    /// Calls the entry with the fake host and the given ABI version.
    func callEntry(version: UInt32 = MOTION_ABI_VERSION, host: FakeHost.Interface = FakeHost.interface) throws -> Plugin? {
        guard let entry else { throw LoadFailure(description: "\(name) has no entry symbol") }
        return entry(version, host.pointer).map(Plugin.init)
    }

    /// The names of the symbols the library exports (defined, global or weak, in `.dynsym`), read from
    /// its ELF file: what `nm -D --defined-only` lists, minus local symbols.
    func exportedSymbols() throws -> [String] {
        try ELFSymbols.exported(fromFileAt: path)
    }
}

/// A plugin's interface (`const motion_plugin_v1 *`), with Swift helpers for each call.
///
/// `@unchecked Sendable`: the interface is immutable and valid for the life of the process.
struct Plugin: @unchecked Sendable {
    let interface: UnsafePointer<motion_plugin_v1>

    var id: String { String(cString: interface.pointee.plugin_id) }

    func create(_ className: String, for context: FakeContext) -> (OpaquePointer?, motion_status, String) {
        var error = makeError()
        let performer = interface.pointee.create_performer(className, context.targetName, context.handle, &error)
        return (performer, error.status, message(of: error))
    }

    /// Adds a plan, its absent fields filled from the manifest's defaults as the host fills them.
    func add(_ json: String, to performer: OpaquePointer) -> (motion_status, String) {
        add(asWritten: ManifestDefaults.filling(json, pluginID: id), to: performer)
    }

    /// Adds a plan exactly as written, without the defaults a host fills in.
    func add(asWritten json: String, to performer: OpaquePointer) -> (motion_status, String) {
        var error = makeError()
        let bytes = Array(json.utf8)
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                interface.pointee.add_plan(performer, $0.baseAddress, $0.count, &error)
            }
        }
        return (status, message(of: error))
    }

    /// The plugin's plan-handles extension (ABI 1.4), which the SDK offers to a host with plans by handle.
    var planHandles: UnsafePointer<motion_plan_handles_v1>? {
        interface.pointee.get_extension(MOTION_EXTENSION_PLAN_HANDLES)?.assumingMemoryBound(to: motion_plan_handles_v1.self)
    }

    /// Adds a plan by handle (motion/plans.h) exactly as written: the plugin reads it through ``FakePlans``.
    func add(byHandle json: String, to performer: OpaquePointer) -> (motion_status, String) {
        var error = makeError()
        guard let add = planHandles?.pointee.add_plan else { return (MOTION_ERR_INTERNAL, "no plan handles") }
        let status = FakePlans.withHandle(json) { add(performer, $0, &error) }
        return (status, message(of: error))
    }

    /// Adds a named plan, its absent fields filled from the manifest's defaults as the host fills them.
    func add(_ json: String, named name: String, to performer: OpaquePointer) -> (motion_status, String) {
        var error = makeError()
        let bytes = Array(ManifestDefaults.filling(json, pluginID: id).utf8)
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                interface.pointee.add_named_plan(performer, name, $0.baseAddress, $0.count, &error)
            }
        }
        return (status, message(of: error))
    }

    func removePlan(named name: String, from performer: OpaquePointer) -> motion_status {
        var error = makeError()
        return interface.pointee.remove_named_plan(performer, name, &error)
    }

    func destroy(_ performer: OpaquePointer) {
        interface.pointee.destroy_performer(performer)
    }

    var frames: UnsafePointer<motion_frames_v1>? {
        interface.pointee.get_extension(MOTION_EXTENSION_FRAMES)?.assumingMemoryBound(to: motion_frames_v1.self)
    }

    var deviceMotion: UnsafePointer<motion_device_motion_v1>? {
        interface.pointee.get_extension(MOTION_EXTENSION_DEVICE_MOTION)?
            .assumingMemoryBound(to: motion_device_motion_v1.self)
    }

    /// Calls the frames extension's update.
    func update(_ performer: OpaquePointer, index: UInt64, time: Double, delta: Double) {
        var frame = motion_frame(
            struct_size: UInt32(MemoryLayout<motion_frame>.size), index: index, time: time, delta: delta)
        frames?.pointee.update(performer, &frame)
    }

    /// `motion_frames_v1.update_many` for `performers`, in order (ABI 1.1).
    func updateMany(_ performers: [OpaquePointer], index: UInt64, time: Double, delta: Double) {
        var frame = motion_frame(
            struct_size: UInt32(MemoryLayout<motion_frame>.size), index: index, time: time, delta: delta)
        let members: [OpaquePointer?] = performers
        members.withUnsafeBufferPointer { frames?.pointee.update_many?($0.baseAddress, $0.count, &frame) }
    }
}

func makeError() -> motion_error {
    var error = motion_error()
    error.struct_size = UInt32(MemoryLayout<motion_error>.size)
    return error
}

func message(of error: motion_error) -> String {
    withUnsafeBytes(of: error.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
}

/// Reads the exported symbols of an ELF64 little-endian shared object from its `.dynsym`.
enum ELFSymbols {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static func exported(fromFileAt path: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func read<T: FixedWidthInteger>(_ offset: Int, as: T.Type) throws -> T {
            guard offset >= 0, offset + MemoryLayout<T>.size <= bytes.count else {
                throw Malformed(description: "\(path): read past the end at \(offset)")
            }
            var value: T = 0
            for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
            return value
        }
        guard bytes.count > 64, bytes[0...3] == [0x7F, 0x45, 0x4C, 0x46], bytes[4] == 2, bytes[5] == 1 else {
            throw Malformed(description: "\(path) is not a 64-bit little-endian ELF file")
        }
        let sectionTable = Int(try read(0x28, as: UInt64.self))
        let sectionSize = Int(try read(0x3A, as: UInt16.self))
        let sectionCount = Int(try read(0x3C, as: UInt16.self))
        var names: [String] = []
        for section in 0..<sectionCount {
            let header = sectionTable + section * sectionSize
            guard try read(header + 4, as: UInt32.self) == 11 else { continue }  // SHT_DYNSYM
            let offset = Int(try read(header + 0x18, as: UInt64.self))
            let size = Int(try read(header + 0x20, as: UInt64.self))
            let link = Int(try read(header + 0x28, as: UInt32.self))
            let entrySize = Int(try read(header + 0x38, as: UInt64.self))
            let strings = Int(try read(sectionTable + link * sectionSize + 0x18, as: UInt64.self))
            guard entrySize > 0 else { continue }
            for symbol in stride(from: offset, to: offset + size, by: entrySize) {
                let nameOffset = Int(try read(symbol, as: UInt32.self))
                let info = try read(symbol + 4, as: UInt8.self)
                let sectionIndex = try read(symbol + 6, as: UInt16.self)
                let binding = info >> 4
                guard sectionIndex != 0, binding == 1 || binding == 2 else { continue }  // defined GLOBAL/WEAK
                var end = strings + nameOffset
                while end < bytes.count, bytes[end] != 0 { end += 1 }
                names.append(String(decoding: bytes[(strings + nameOffset)..<end], as: UTF8.self))
            }
        }
        return names.sorted()
    }
}
