import FoundationEssentials
import MotionCore

/// A plugin's JSON manifest: everything the host needs to list the plugin, describe its plan types and
/// validate plans, without loading its library (as LV2's `manifest.ttl` is to an LV2 bundle).
///
/// The format is specified by `manifests/schema/manifest.schema.json`; ``load(contentsOf:)`` checks
/// every rule of it (and a few a schema cannot say, such as a call argument naming a declared field).
///
/// Thread rule: a value type; safe to use from any thread.
public struct PluginManifest: Sendable, Hashable {
    /// The manifest format version this host reads (`"manifestVersion": 1`).
    public static let supportedManifestVersion = 1

    /// The manifest format version, always ``supportedManifestVersion``.
    public let manifestVersion: Int
    /// The plugin's reverse-DNS id, e.g. `"org.motion.tweenkit"`.
    public let id: String
    /// A human-readable name, e.g. `"TweenKit"`.
    public let name: String
    /// The plugin's version, semver-style (`"1.0.0"`, `"2.1"`, `"1.0.0-beta.1"`).
    public let version: String
    /// The `MOTION_ABI_VERSION_MAJOR.MINOR` of `motion_plugin.h` the library was built against.
    public let abiVersion: ABIVersion
    /// The library: a file name or a relative path, resolved against the manifest's folder, then the
    /// configured library folders (never absolute, never escaping with `..`).
    public let library: String
    /// The library's SHA-256 as 64 lowercase hex digits, if the manifest pins one.
    ///
    /// A manifest pin detects corruption only: whoever can rewrite the library can rewrite the manifest
    /// beside it. To protect against a rewritten plugin folder, pin the hash in the host configuration
    /// (``HostConfiguration/pins``).
    public let sha256: String?
    /// A one-line summary of the plugin.
    public let summary: String?
    /// The performer classes the plugin provides.
    public let performers: [PerformerManifest]
    /// The manifest file this was read from.
    public let url: URL

    /// A manifest from its parts; ``load(contentsOf:)`` is the usual way to get one.
    public init(
        manifestVersion: Int = PluginManifest.supportedManifestVersion, id: String, name: String, version: String,
        abiVersion: ABIVersion, library: String, sha256: String? = nil, summary: String? = nil,
        performers: [PerformerManifest], url: URL
    ) {
        self.manifestVersion = manifestVersion
        self.id = id
        self.name = name
        self.version = version
        self.abiVersion = abiVersion
        self.library = library
        self.sha256 = sha256
        self.summary = summary
        self.performers = performers
        self.url = url
    }

    /// Every plan type the plugin declares, in manifest order.
    public var planTypes: [String] { performers.flatMap { $0.plans.map(\.type) } }

    /// The performer and plan declaration for a plan type, if this manifest declares it.
    /// - Parameter planType: A plan type name, e.g. `"Tween"`.
    /// - Returns: The performer class that performs it and the plan's declaration.
    public func declaration(ofPlanType planType: String) -> (performer: PerformerManifest, plan: PlanManifest)? {
        for performer in performers {
            for plan in performer.plans where plan.type == planType { return (performer, plan) }
        }
        return nil
    }
}

/// An ABI version: `MOTION_ABI_VERSION_MAJOR` and `_MINOR` of `motion_plugin.h`.
///
/// Majors must match between host and plugin; a plugin built against an older or newer minor loads.
public struct ABIVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The major version: incompatible changes.
    public let major: Int
    /// The minor version: compatible additions.
    public let minor: Int

    /// An ABI version.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// Parses `"MAJOR.MINOR"`, two non-negative decimal integers without leading `+` or spaces.
    /// - Returns: `nil` for anything else (`"1"`, `"1.0.0"`, `"v1.0"`).
    public init?(_ text: String) {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 2, let major = Self.number(parts[0]), let minor = Self.number(parts[1]) else {
            return nil
        }
        self.init(major: major, minor: minor)
    }

    /// The packed form `motion_plugin.h` uses: `(major << 16) | minor`.
    public var packed: UInt32 { UInt32(truncatingIfNeeded: major) << 16 | UInt32(truncatingIfNeeded: minor & 0xffff) }

    /// `"MAJOR.MINOR"`.
    public var description: String { "\(major).\(minor)" }

    public static func < (lhs: ABIVersion, rhs: ABIVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    private static func number(_ digits: Substring.UTF8View.SubSequence) -> Int? {
        guard !digits.isEmpty, digits.count <= 5 else { return nil }
        var value = 0
        for c in digits {
            guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(c - UInt8(ascii: "0"))
        }
        return value
    }
}

/// A performer class in a manifest: its name, how the host talks to it and the plan types it performs.
public struct PerformerManifest: Sendable, Hashable {
    /// How the host talks to a performer class.
    public enum Interface: String, Sendable, Hashable, CaseIterable {
        /// Through the library's `motion_plugin_entry` and the `motion_plugin_v1` table it returns.
        case entry
        /// Declaratively: plain C functions named in the manifest, called through libffi.
        case functions
    }

    /// What a performer class can do, beyond accepting plans.
    public enum Capability: String, Sendable, Hashable, CaseIterable {
        /// Updated once per frame (`motion.frames/1`, or a `functions.update` symbol).
        case frames
        /// Holds is-active tokens while it works.
        case tokens
        /// Emits transactions of its own.
        case composition
        /// Accepts named plans (`add_named_plan`, `remove_named_plan`).
        case namedPlans
        /// Receives device-motion samples (`motion.device-motion/1`).
        case deviceMotion
    }

    /// The C function symbols of a declarative (`"functions"`) performer class.
    public struct Functions: Sendable, Hashable {
        /// `void *create(const char *target_name, const motion_host_v1 *host, motion_host_context *ctx)`;
        /// returns NULL to refuse.
        public let create: String
        /// `void destroy(void *performer)`.
        public let destroy: String
        /// Optional `void update(void *performer, double time, double delta)` (seconds), once per frame.
        public let update: String?

        /// The symbols of a declarative performer class.
        public init(create: String, destroy: String, update: String? = nil) {
            self.create = create
            self.destroy = destroy
            self.update = update
        }
    }

    /// The class name, e.g. `"TweenPerformer"`, passed to `create_performer`. Manifest key `"class"`.
    public let className: String
    /// How the host talks to this class.
    public let interface: Interface
    /// What the class can do, in manifest order.
    public let capabilities: [Capability]
    /// The C functions, for an ``Interface/functions`` class; `nil` for an ``Interface/entry`` class.
    public let functions: Functions?
    /// The plan types this class performs.
    public let plans: [PlanManifest]

    /// A performer class declaration.
    public init(
        className: String, interface: Interface, capabilities: [Capability] = [], functions: Functions? = nil,
        plans: [PlanManifest]
    ) {
        self.className = className
        self.interface = interface
        self.capabilities = capabilities
        self.functions = functions
        self.plans = plans
    }
}

/// A plan type in a manifest: its name, summary, fields and (for a declarative performer) the C call.
///
/// ``validate(_:)`` checks a plan against it before any performer sees the plan.
public struct PlanManifest: Sendable, Hashable {
    /// The plan type name, e.g. `"Tween"`.
    public let type: String
    /// A one-line summary.
    public let summary: String?
    /// The plan's fields, in manifest order.
    public let fields: [FieldManifest]
    /// For a declarative (`"functions"`) performer: the C function that receives this plan.
    public let call: CallDeclaration?

    /// Precomputed for ``validate(_:)``: field index by name, and which fields are required or defaulted.
    let lookup: FieldLookup

    /// A plan type declaration.
    public init(type: String, summary: String? = nil, fields: [FieldManifest], call: CallDeclaration? = nil) {
        self.type = type
        self.summary = summary
        self.fields = fields
        self.call = call
        self.lookup = FieldLookup(fields)
    }

    /// The declared field called `name`.
    public func field(named name: String) -> FieldManifest? {
        if fields.count <= 8 { return fields.first { $0.name == name } }
        return lookup.index[name].map { fields[$0] }
    }

    public static func == (lhs: PlanManifest, rhs: PlanManifest) -> Bool {
        lhs.type == rhs.type && lhs.summary == rhs.summary && lhs.fields == rhs.fields && lhs.call == rhs.call
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(fields)
    }
}

/// The C function a declarative performer receives a plan through:
/// `int32_t symbol(void *performer, <one argument per entry of arguments, in order>)`, returning a
/// `motion_status`.
public struct CallDeclaration: Sendable, Hashable {
    /// One C argument: the plan field whose value is passed, and its C type.
    public struct Argument: Sendable, Hashable {
        /// The name of a field of the plan.
        public let field: String
        /// The C type the field's value is converted to. Manifest key `"type"`.
        public let ctype: CType

        /// A call argument.
        public init(field: String, ctype: CType) {
            self.field = field
            self.ctype = ctype
        }
    }

    /// The exported C symbol.
    public let symbol: String
    /// The arguments after the performer pointer, in order.
    public let arguments: [Argument]

    /// A call declaration.
    public init(symbol: String, arguments: [Argument]) {
        self.symbol = symbol
        self.arguments = arguments
    }
}

/// A C type a declarative performer's plan function takes (see `motion_plugin.h`).
public enum CType: String, Sendable, Hashable, CaseIterable {
    /// `double`, from a `number` (or `integer`) field.
    case double
    /// `int64_t`, from an `integer` field.
    case int64
    /// C99 `bool` (`_Bool`, passed as `uint8_t`), from a `boolean` field.
    case bool
    /// `const char *`: UTF-8, NUL-terminated, valid during the call only; from a `string` field.
    case string

    /// The field types whose values convert to this C type.
    public var acceptedFieldTypes: [FieldType] {
        switch self {
        case .double: [.number, .integer]
        case .int64: [.integer]
        case .bool: [.boolean]
        case .string: [.string, .property]
        }
    }
}

/// The JSON type of a plan field.
public enum FieldType: String, Sendable, Hashable, CaseIterable {
    /// A JSON number (a `Double`).
    case number
    /// A JSON number with no fractional part, within ±2⁵³.
    case integer
    /// `true` or `false`.
    case boolean
    /// A string.
    case string
    /// The name of a property of the plan's target (a non-empty string, e.g. `"opacity"`). At commit the host
    /// checks that the target has that property, so a typo (`"postion"`) is an error naming the nearest one,
    /// not a new property.
    case property
    /// An array of numbers: 1–4 items unless `minItems`/`maxItems` say otherwise.
    case vector
    /// Any JSON object (for example a transaction).
    case object
    /// Any JSON array.
    case array

    /// The `"a ..."` phrase errors use, e.g. `"a number"`, `"an integer"`.
    var phrase: String {
        switch self {
        case .number: "a number"
        case .integer: "an integer"
        case .boolean: "a boolean"
        case .string: "a string"
        case .property: "the name of one of the target's properties"
        case .vector: "a vector"
        case .object: "an object"
        case .array: "an array"
        }
    }
}

/// A field of a plan type: its JSON type, unit, default, range, allowed values and whether it is required.
public struct FieldManifest: Sendable, Hashable {
    /// The field's key in the plan's JSON, e.g. `"duration"`. Never `"type"`.
    public let name: String
    /// The JSON type.
    public let type: FieldType
    /// The unit, e.g. `"s"`, `"rad"`, `"g"`; for documentation and error messages.
    public let unit: String?
    /// The value filled in when the plan leaves this optional field out. Manifest key `"default"`.
    public let defaultValue: JSONValue?
    /// The least allowed value (a number, an integer, or each item of a vector).
    public let minimum: Double?
    /// The greatest allowed value (a number, an integer, or each item of a vector).
    public let maximum: Double?
    /// The allowed values (strings or numbers). Manifest key `"enum"`.
    public let enumValues: [JSONValue]?
    /// Whether a plan must give this field. Default `false`.
    public let required: Bool
    /// A one-line summary.
    public let summary: String?
    /// The fewest items of a `vector` or `array` (a `vector` defaults to 1).
    public let minItems: Int?
    /// The most items of a `vector` or `array` (a `vector` defaults to 4).
    public let maxItems: Int?

    /// A field declaration.
    public init(
        name: String, type: FieldType, unit: String? = nil, defaultValue: JSONValue? = nil, minimum: Double? = nil,
        maximum: Double? = nil, enumValues: [JSONValue]? = nil, required: Bool = false, summary: String? = nil,
        minItems: Int? = nil, maxItems: Int? = nil
    ) {
        self.name = name
        self.type = type
        self.unit = unit
        self.defaultValue = defaultValue
        self.minimum = minimum
        self.maximum = maximum
        self.enumValues = enumValues
        self.required = required
        self.summary = summary
        self.minItems = minItems
        self.maxItems = maxItems
    }

    /// The item count range a `vector` or `array` value must have.
    public var itemRange: ClosedRange<Int> {
        let low = minItems ?? (type == .vector ? 1 : 0)
        let high = maxItems ?? (type == .vector ? 4 : Int.max)
        return low...max(low, high)
    }
}
