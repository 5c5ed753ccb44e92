import FoundationEssentials
import Glibc
import MotionCore
import MotionFiles

/// A cache of validated manifests keyed by file path, size, modification and change time and inode
/// (as GStreamer's registry keeps plugin details keyed by path, size and mtime), so that listing
/// plugins reads one file instead of parsing every manifest.
///
/// Stored at `$XDG_CACHE_HOME/motion/discovery-v2.cache` (`~/.cache/...` when unset) by
/// ``standard(environment:)``. Only valid manifests are cached; an invalid manifest is read again each
/// time so its error stays exact. The cache is an optimisation only: a missing, corrupt, foreign-owned
/// or group/other-writable cache file is ignored (and rewritten), and a failed write is ignored. It
/// holds no trust decision: library hashes and permissions are checked when a library is loaded.
///
/// Thread rule: a value type; discovery with a cache may run on any thread. Two processes writing at
/// once each replace the file atomically; the last one wins.
public struct DiscoveryCache: Sendable, Hashable {
    /// The cache file.
    public let url: URL

    /// A cache stored in `url`.
    public init(url: URL) {
        self.url = url
    }

    /// The standard cache file, `$XDG_CACHE_HOME/motion/discovery-v2.cache`.
    /// - Parameter environment: The process environment (injectable for tests).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> DiscoveryCache {
        let base = XDG.directory("XDG_CACHE_HOME", default: ".cache", environment: environment)
        return DiscoveryCache(url: URL(fileURLWithPath: base + "/motion/discovery-v\(CacheFormat.version).cache"))
    }

    /// Reads the cache file for one discovery.
    func open() -> CacheSession {
        CacheSession(url: url)
    }
}

/// One discovery's use of the cache: entries read at the start, hits and new entries recorded, written
/// back at the end if anything changed.
final class CacheSession: @unchecked Sendable {
    // @unchecked: during discovery's parallel phase only `cachedManifest`, which reads the immutable
    // `old` entries, is called; `keep`, `store` and `save` run afterwards on the discovering thread.
    struct Key: Equatable {
        var size: Int64
        var modificationSeconds: Int64
        var modificationNanoseconds: Int64
        var changeSeconds: Int64
        var changeNanoseconds: Int64
        var inode: UInt64
        var device: UInt64

        init(
            size: Int64, modificationSeconds: Int64, modificationNanoseconds: Int64, changeSeconds: Int64,
            changeNanoseconds: Int64, inode: UInt64, device: UInt64
        ) {
            self.size = size
            self.modificationSeconds = modificationSeconds
            self.modificationNanoseconds = modificationNanoseconds
            self.changeSeconds = changeSeconds
            self.changeNanoseconds = changeNanoseconds
            self.inode = inode
            self.device = device
        }

        init(_ s: FileStatus) {
            size = s.size
            modificationSeconds = s.modificationSeconds
            modificationNanoseconds = s.modificationNanoseconds
            changeSeconds = s.changeSeconds
            changeNanoseconds = s.changeNanoseconds
            inode = s.inode
            device = s.device
        }
    }

    struct Stored {
        var key: Key
        /// Where the entry's manifest bytes are in ``CacheSession/storage``.
        var range: Range<Int>
    }

    let url: URL
    /// The cache file's bytes, as read.
    private let storage: [UInt8]
    private let old: [String: Stored]
    private var kept: [(path: String, key: Key, bytes: ArraySlice<UInt8>)] = []
    private var changed = false

    init(url: URL) {
        self.url = url
        if let (storage, entries) = CacheFormat.readEntries(path: url.path) {
            self.storage = storage
            old = entries
        } else {
            storage = []
            old = [:]
            changed = true
        }
    }

    /// The cached manifest for a file whose status still matches, or `nil`. Read-only: safe to call from
    /// several threads at once.
    func cachedManifest(path: String, status: FileStatus, url: URL) -> PluginManifest? {
        guard let stored = old[path], stored.key == Key(status) else { return nil }
        return storage.withUnsafeBytes { buffer in
            var reader = CacheFormat.Reader(UnsafeRawBufferPointer(rebasing: buffer[stored.range]))
            return reader.manifest(url: url)
        }
    }

    /// Keeps the cached entry of a file that was served from the cache.
    func keep(path: String) {
        guard let stored = old[path] else { return }
        kept.append((path, stored.key, storage[stored.range]))
    }

    /// Records a freshly read valid manifest.
    func store(_ manifest: PluginManifest, path: String, status: FileStatus) {
        var writer = CacheFormat.Writer()
        writer.manifest(manifest)
        kept.append((path, Key(status), writer.bytes[...]))
        changed = true
    }

    /// Writes the cache back if an entry was added, or one went stale or missing.
    func save() {
        if !changed && kept.count == old.count { return }
        var writer = CacheFormat.Writer()
        writer.header(count: kept.count)
        for entry in kept {
            writer.string(entry.path)
            writer.key(entry.key)
            writer.u32(UInt32(entry.bytes.count))
            writer.bytes += entry.bytes
        }
        let checksum = writer.bytes.withUnsafeBytes { CacheFormat.checksum($0) }
        writer.u64(checksum)
        let path = url.path
        do {
            try system_makeDirectories(directoryName(of: path))
            // A new file under this process's name: whatever is left there (by a process of the same id that
            // died, or a link someone placed) is removed, never written through.
            let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
            system_unlink(temporary)
            let written = writer.bytes.withUnsafeBytes { buffer in
                (try? system_createFile(temporary, buffer)) != nil
            }
            guard written else {
                system_unlink(temporary)
                return
            }
            do {
                try system_rename(temporary, path)
            } catch {
                system_unlink(temporary)
            }
        } catch {
            // Best effort: discovery works without a cache.
        }
    }
}

/// The cache file's binary layout (little-endian): magic, format version, entry count, then per entry
/// path, status key, and the manifest's fields; last, a checksum of all that. Bump ``version`` whenever the layout or the manifest
/// validation rules change, so that old caches are ignored.
enum CacheFormat {
    static let version: UInt32 = 3
    static let magic: [UInt8] = Array("MOTIONDC".utf8)

    static func readEntries(path: String) -> ([UInt8], [String: CacheSession.Stored])? {
        // Opened without blocking and only if a regular file (a FIFO or device in its place is ignored).
        guard let file = try? RegularFile.open(atPath: path, what: "the discovery cache") else { return nil }
        defer { RegularFile.close(file) }
        guard file.mode & UInt32(S_IWGRP | S_IWOTH) == 0, file.owner == system_geteuid() || file.owner == 0,
            let bytes = try? RegularFile.read(file, path: path, limit: 1 << 30, what: "the discovery cache")
        else { return nil }
        let entries = bytes.withUnsafeBytes { file -> [String: CacheSession.Stored]? in
            // The last 8 bytes are a checksum of everything before them: a damaged cache is ignored.
            guard file.count >= 8 else { return nil }
            let buffer = UnsafeRawBufferPointer(rebasing: file[..<(file.count - 8)])
            let stored = UInt64(littleEndian: file.loadUnaligned(fromByteOffset: file.count - 8, as: UInt64.self))
            guard checksum(buffer) == stored else { return nil }
            var reader = Reader(buffer)
            guard reader.take(magic.count).map(Array.init) == magic, reader.u32() == version, let n = reader.u32()
            else {
                return nil
            }
            var entries: [String: CacheSession.Stored] = [:]
            entries.reserveCapacity(Int(min(n, 1 << 20)))
            for _ in 0..<n {
                guard let path = reader.string(), let key = reader.key(), let length = reader.u32() else { return nil }
                let start = reader.position
                guard reader.take(Int(length)) != nil else { return nil }
                entries[path] = CacheSession.Stored(key: key, range: start..<reader.position)
            }
            return entries
        }
        guard let entries else { return nil }
        return (bytes, entries)
    }

    /// A 64-bit checksum of the cache's contents. Each step is a bijection of the running value for a
    /// given word and of the word for a given value, so any single changed byte changes the result.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var i = 0
        while i + 8 <= bytes.count {
            h =
                (h ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        while i < bytes.count {
            h = (h ^ UInt64(bytes[i])) &* 0x0000_0100_0000_01B3
            h ^= h >> 32
            i += 1
        }
        return h
    }

    struct Writer {
        var bytes: [UInt8] = []

        mutating func header(count: Int) {
            bytes += CacheFormat.magic
            u32(CacheFormat.version)
            u32(UInt32(count))
        }

        mutating func u8(_ v: UInt8) { bytes.append(v) }
        mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
        mutating func double(_ v: Double) { u64(v.bitPattern) }
        mutating func string(_ s: String) {
            var s = s
            s.withUTF8 { utf8 in
                u32(UInt32(utf8.count))
                bytes += utf8
            }
        }
        mutating func optionalString(_ s: String?) {
            if let s {
                u8(1)
                string(s)
            } else {
                u8(0)
            }
        }
        mutating func optionalDouble(_ v: Double?) {
            if let v {
                u8(1)
                double(v)
            } else {
                u8(0)
            }
        }
        mutating func optionalInt(_ v: Int?) {
            if let v {
                u8(1)
                i64(Int64(v))
            } else {
                u8(0)
            }
        }

        mutating func key(_ k: CacheSession.Key) {
            i64(k.size)
            i64(k.modificationSeconds)
            i64(k.modificationNanoseconds)
            i64(k.changeSeconds)
            i64(k.changeNanoseconds)
            u64(k.inode)
            u64(k.device)
        }

        mutating func json(_ value: JSONValue) {
            switch value {
            case .null: u8(0)
            case .bool(let b): u8(b ? 2 : 1)
            case .number(let n):
                u8(3)
                double(n)
            case .string(let s):
                u8(4)
                string(s)
            case .array(let items):
                u8(5)
                u32(UInt32(items.count))
                for item in items { json(item) }
            case .object(let members):
                u8(6)
                u32(UInt32(members.count))
                for (key, item) in members {
                    string(key)
                    json(item)
                }
            }
        }

        mutating func manifest(_ m: PluginManifest) {
            i64(Int64(m.manifestVersion))
            string(m.id)
            string(m.name)
            string(m.version)
            u32(UInt32(m.abiVersion.major))
            u32(UInt32(m.abiVersion.minor))
            string(m.library)
            optionalString(m.sha256)
            optionalString(m.summary)
            u32(UInt32(m.performers.count))
            for p in m.performers {
                string(p.className)
                string(p.interface.rawValue)
                u32(UInt32(p.capabilities.count))
                for c in p.capabilities { string(c.rawValue) }
                if let f = p.functions {
                    u8(1)
                    string(f.create)
                    string(f.destroy)
                    optionalString(f.update)
                } else {
                    u8(0)
                }
                u32(UInt32(p.plans.count))
                for plan in p.plans {
                    string(plan.type)
                    optionalString(plan.summary)
                    u32(UInt32(plan.fields.count))
                    for f in plan.fields {
                        string(f.name)
                        string(f.type.rawValue)
                        optionalString(f.unit)
                        if let d = f.defaultValue {
                            u8(1)
                            json(d)
                        } else {
                            u8(0)
                        }
                        optionalDouble(f.minimum)
                        optionalDouble(f.maximum)
                        if let e = f.enumValues {
                            u8(1)
                            json(.array(e))
                        } else {
                            u8(0)
                        }
                        u8(f.required ? 1 : 0)
                        optionalString(f.summary)
                        optionalInt(f.minItems)
                        optionalInt(f.maxItems)
                    }
                    if let call = plan.call {
                        u8(1)
                        string(call.symbol)
                        u32(UInt32(call.arguments.count))
                        for a in call.arguments {
                            string(a.field)
                            string(a.ctype.rawValue)
                        }
                    } else {
                        u8(0)
                    }
                }
            }
        }
    }

    /// Reads what ``Writer`` wrote; every read is bounds-checked and returns `nil` past the end.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        private(set) var position = 0

        init(_ bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        var remaining: Int { bytes.count - position }

        mutating func take(_ n: Int) -> UnsafeRawBufferPointer? {
            guard n >= 0, remaining >= n else { return nil }
            let part = UnsafeRawBufferPointer(rebasing: bytes[position..<position + n])
            position += n
            return part
        }

        mutating func u8() -> UInt8? {
            guard remaining >= 1 else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func u64() -> UInt64? {
            guard remaining >= 8 else { return nil }
            defer { position += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        }

        mutating func u32() -> UInt32? {
            guard remaining >= 4 else { return nil }
            defer { position += 4 }
            return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self))
        }

        mutating func i64() -> Int64? { u64().map { Int64(bitPattern: $0) } }
        mutating func double() -> Double? { u64().map { Double(bitPattern: $0) } }

        mutating func string() -> String? {
            guard let n = u32(), let part = take(Int(n)) else { return nil }
            return String(decoding: part, as: UTF8.self)
        }

        mutating func optional<T>(_ read: (inout Reader) -> T?) -> T?? {
            guard let flag = u8() else { return nil }
            if flag == 0 { return .some(nil) }
            guard let value = read(&self) else { return nil }
            return .some(value)
        }

        mutating func key() -> CacheSession.Key? {
            guard let size = i64(), let ms = i64(), let mn = i64(), let cs = i64(), let cn = i64(), let ino = u64(),
                let dev = u64()
            else { return nil }
            return CacheSession.Key(
                size: size, modificationSeconds: ms, modificationNanoseconds: mn, changeSeconds: cs,
                changeNanoseconds: cn, inode: ino, device: dev)
        }

        mutating func json(depth: Int = 0) -> JSONValue? {
            guard depth < 64, let tag = u8() else { return nil }
            switch tag {
            case 0: return .null
            case 1: return .bool(false)
            case 2: return .bool(true)
            case 3: return double().map { .number($0) }
            case 4: return string().map { .string($0) }
            case 5:
                guard let n = u32(), Int(n) <= remaining else { return nil }
                var items: [JSONValue] = []
                for _ in 0..<n {
                    guard let item = json(depth: depth + 1) else { return nil }
                    items.append(item)
                }
                return .array(items)
            case 6:
                guard let n = u32(), Int(n) <= remaining else { return nil }
                var members: [String: JSONValue] = [:]
                for _ in 0..<n {
                    guard let key = string(), let item = json(depth: depth + 1) else { return nil }
                    members[key] = item
                }
                return .object(members)
            default: return nil
            }
        }

        mutating func count() -> Int? {
            guard let n = u32(), Int(n) <= remaining else { return nil }
            return Int(n)
        }

        mutating func manifest(url: URL) -> PluginManifest? {
            guard let version = i64(), let id = string(), let name = string(), let pluginVersion = string(),
                let major = u32(), let minor = u32(), let library = string(),
                let sha256 = optional({ $0.string() }), let summary = optional({ $0.string() }),
                let performerCount = count()
            else { return nil }
            var performers: [PerformerManifest] = []
            performers.reserveCapacity(performerCount)
            for _ in 0..<performerCount {
                guard let className = string(), let interface = string().flatMap(PerformerManifest.Interface.init),
                    let capabilityCount = count()
                else { return nil }
                var capabilities: [PerformerManifest.Capability] = []
                for _ in 0..<capabilityCount {
                    guard let c = string().flatMap(PerformerManifest.Capability.init) else { return nil }
                    capabilities.append(c)
                }
                guard let hasFunctions = u8() else { return nil }
                var functions: PerformerManifest.Functions?
                if hasFunctions == 1 {
                    guard let create = string(), let destroy = string(), let update = optional({ $0.string() }) else {
                        return nil
                    }
                    functions = .init(create: create, destroy: destroy, update: update)
                }
                guard let planCount = count() else { return nil }
                var plans: [PlanManifest] = []
                plans.reserveCapacity(planCount)
                for _ in 0..<planCount {
                    guard let type = string(), let planSummary = optional({ $0.string() }), let fieldCount = count()
                    else { return nil }
                    var fields: [FieldManifest] = []
                    fields.reserveCapacity(fieldCount)
                    for _ in 0..<fieldCount {
                        guard let fieldName = string(), let fieldType = string().flatMap(FieldType.init),
                            let unit = optional({ $0.string() }), let defaultValue = optional({ $0.json() }),
                            let minimum = optional({ $0.double() }), let maximum = optional({ $0.double() }),
                            let enumValues = optional({ $0.json() }), let required = u8(),
                            let fieldSummary = optional({ $0.string() }), let minItems = optional({ $0.i64() }),
                            let maxItems = optional({ $0.i64() })
                        else { return nil }
                        fields.append(
                            FieldManifest(
                                name: fieldName, type: fieldType, unit: unit, defaultValue: defaultValue,
                                minimum: minimum, maximum: maximum, enumValues: enumValues?.array,
                                required: required == 1, summary: fieldSummary, minItems: minItems.map { Int($0) },
                                maxItems: maxItems.map { Int($0) }))
                    }
                    guard let hasCall = u8() else { return nil }
                    var call: CallDeclaration?
                    if hasCall == 1 {
                        guard let symbol = string(), let argumentCount = count() else { return nil }
                        var arguments: [CallDeclaration.Argument] = []
                        for _ in 0..<argumentCount {
                            guard let field = string(), let ctype = string().flatMap(CType.init) else { return nil }
                            arguments.append(.init(field: field, ctype: ctype))
                        }
                        call = CallDeclaration(symbol: symbol, arguments: arguments)
                    }
                    plans.append(PlanManifest(type: type, summary: planSummary, fields: fields, call: call))
                }
                performers.append(
                    PerformerManifest(
                        className: className, interface: interface, capabilities: capabilities, functions: functions,
                        plans: plans))
            }
            guard remaining == 0 else { return nil }
            return PluginManifest(
                manifestVersion: Int(version), id: id, name: name, version: pluginVersion,
                abiVersion: ABIVersion(major: Int(major), minor: Int(minor)), library: library, sha256: sha256,
                summary: summary, performers: performers, url: url)
        }
    }
}
