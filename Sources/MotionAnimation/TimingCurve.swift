/// A CSS / Core Animation cubic-Bézier timing function: the curve from (0, 0) to (1, 1) through the
/// control points (x1, y1) and (x2, y2), read as "progress in time (x) → progress of the value (y)".
///
/// Evaluating it solves x(t) = progress for the curve parameter t (Newton's method, falling back to
/// bisection, to 1e-9), then returns y(t). This is the algorithm of WebKit's `UnitBezier`.
/// y1 and y2 may leave [0, 1] (overshoot); x1 and x2 may not, or the curve would not be a function of time.
public struct CubicBezier: Hashable, Sendable, CustomStringConvertible {
    /// First control point, x in [0, 1].
    public let x1: Double
    /// First control point, y (any finite value).
    public let y1: Double
    /// Second control point, x in [0, 1].
    public let x2: Double
    /// Second control point, y (any finite value).
    public let y2: Double

    // Polynomial coefficients: x(t) = ((ax t + bx) t + cx) t, and likewise for y. (`@usableFromInline` so
    // that a tween's frame evaluates the curve inlined, with no copy of it and no call.)
    @usableFromInline let ax, bx, cx, ay, by, cy: Double

    /// Creates a cubic-Bézier timing curve.
    /// - Parameters:
    ///   - x1: first control point's x, in [0, 1].
    ///   - y1: first control point's y, finite.
    ///   - x2: second control point's x, in [0, 1].
    ///   - y2: second control point's y, finite.
    /// - Throws: `AnimationError` (`notFinite` or `outOfRange`) naming the offending control point.
    public init(x1: Double, y1: Double, x2: Double, y2: Double) throws(AnimationError) {
        try require(x1, "x1", in: 0...1, "an x between 0 and 1")
        try require(y1, "y1", "a finite y")
        try require(x2, "x2", in: 0...1, "an x between 0 and 1")
        try require(y2, "y2", "a finite y")
        self.init(unchecked: x1, y1, x2, y2)
    }

    /// Creates a curve from control points known to be valid (the presets).
    private init(unchecked x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        self.x1 = x1
        self.y1 = y1
        self.x2 = x2
        self.y2 = y2
        cx = 3 * x1
        bx = 3 * (x2 - x1) - cx
        ax = 1 - cx - bx
        cy = 3 * y1
        by = 3 * (y2 - y1) - cy
        ay = 1 - cy - by
    }

    /// Creates a curve from `[x1, y1, x2, y2]`, the form plans use (`"controlPoints"`).
    /// - Parameter controlPoints: exactly four numbers.
    /// - Throws: `AnimationError.Code.outOfRange` for a count other than four, or as `init(x1:y1:x2:y2:)`.
    public init(controlPoints: [Double]) throws(AnimationError) {
        guard controlPoints.count == 4 else {
            throw AnimationError(
                .outOfRange, parameter: "controlPoints",
                message: "got \(controlPoints.count) numbers. To fix, pass exactly four: [x1, y1, x2, y2].")
        }
        try self.init(x1: controlPoints[0], y1: controlPoints[1], x2: controlPoints[2], y2: controlPoints[3])
    }

    /// CSS `ease-in` and Core Animation's `kCAMediaTimingFunctionEaseIn`: (0.42, 0, 1, 1).
    public static let easeIn = CubicBezier(unchecked: 0.42, 0, 1, 1)
    /// CSS `ease-out` and Core Animation's `kCAMediaTimingFunctionEaseOut`: (0, 0, 0.58, 1).
    public static let easeOut = CubicBezier(unchecked: 0, 0, 0.58, 1)
    /// CSS `ease-in-out` and Core Animation's `kCAMediaTimingFunctionEaseInEaseOut`: (0.42, 0, 0.58, 1).
    /// The Material Motion runtime's Tween (built on Core Animation) used these three.
    public static let easeInOut = CubicBezier(unchecked: 0.42, 0, 0.58, 1)
    /// Material Design's standard curve ("fast out, slow in"): (0.4, 0, 0.2, 1).
    public static let materialStandard = CubicBezier(unchecked: 0.4, 0, 0.2, 1)
    /// Material Design's deceleration curve ("linear out, slow in"): (0, 0, 0.2, 1).
    public static let materialDeceleration = CubicBezier(unchecked: 0, 0, 0.2, 1)
    /// Material Design's acceleration curve ("fast out, linear in"): (0.4, 0, 1, 1).
    public static let materialAcceleration = CubicBezier(unchecked: 0.4, 0, 1, 1)
    /// Material Design's sharp curve: (0.4, 0, 0.6, 1).
    public static let materialSharp = CubicBezier(unchecked: 0.4, 0, 0.6, 1)

    /// Every preset above, in the order they are declared (a tween stores a curve as its index here).
    public static let presets: [CubicBezier] = [
        .easeIn, .easeOut, .easeInOut, .materialStandard, .materialDeceleration, .materialAcceleration, .materialSharp,
    ]

    /// The eased progress for a progress in time.
    /// - Parameter progress: fraction of the duration elapsed; clamped to [0, 1] (NaN counts as 0).
    /// - Returns: the fraction of the change to apply: 0 at 0 and 1 at 1, possibly outside [0, 1] in between
    ///   when a control point's y is.
    @inlinable
    public func value(at progress: Double) -> Double {
        guard progress > 0 else { return 0 }
        guard progress < 1 else { return 1 }
        return sampleY(solveT(forX: progress))
    }

    /// `"cubicBezier(x1, y1, x2, y2)"`.
    public var description: String { "cubicBezier(\(x1), \(y1), \(x2), \(y2))" }

    @inlinable func sampleX(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    @inlinable func sampleY(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }
    @inlinable func sampleDerivativeX(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }

    /// Solves x(t) = x for t in [0, 1]. x(t) is monotonic because x1, x2 are in [0, 1].
    @inlinable @inline(__always)
    func solveT(forX x: Double) -> Double {
        let epsilon = 1e-9
        // Newton's method from t = x: fast where the slope is not flat.
        var t = x
        for _ in 0..<8 {
            let error = sampleX(t) - x
            if abs(error) < epsilon { return t }
            let slope = sampleDerivativeX(t)
            if abs(slope) < 1e-6 { break }
            t -= error / slope
        }
        // Bisection: always converges on the monotonic x(t).
        var low = 0.0
        var high = 1.0
        t = x
        for _ in 0..<64 {
            let value = sampleX(t)
            if abs(value - x) < epsilon { return t }
            if value < x { low = t } else { high = t }
            t = (low + high) / 2
        }
        return t
    }
}

/// How a tween's progress in time maps to the progress of its value.
public enum TimingCurve: Hashable, Sendable, CustomStringConvertible {
    /// Progress in time is progress of the value.
    case linear
    /// A cubic-Bézier curve (CSS `cubic-bezier()`, `CAMediaTimingFunction`).
    case cubicBezier(CubicBezier)

    /// CSS `ease-in`, (0.42, 0, 1, 1).
    public static let easeIn = TimingCurve.cubicBezier(.easeIn)
    /// CSS `ease-out`, (0, 0, 0.58, 1).
    public static let easeOut = TimingCurve.cubicBezier(.easeOut)
    /// CSS `ease-in-out`, (0.42, 0, 0.58, 1).
    public static let easeInOut = TimingCurve.cubicBezier(.easeInOut)

    /// The names plans use for the presets: `linear`, `easeIn`, `easeOut`, `easeInOut`.
    public static let names = ["linear", "easeIn", "easeOut", "easeInOut"]

    /// The preset of a name as plans spell it.
    /// - Parameter name: one of `TimingCurve.names` (case-sensitive).
    /// - Throws: `AnimationError.Code.unknownName` listing the known names.
    public init(named name: String) throws(AnimationError) {
        // Only the names of the right length are compared, so a known name costs one compare of two equal strings
        // (Swift's fast case; two unequal strings take its slow, Unicode-aware path: about 100 instructions a
        // plan for "easeInOut" tried after three others).
        switch name.utf8.count {
        case 6 where name == "linear": self = .linear
        case 6 where name == "easeIn": self = .easeIn
        case 7 where name == "easeOut": self = .easeOut
        case 9 where name == "easeInOut": self = .easeInOut
        default:
            throw AnimationError(
                .unknownName, parameter: "timing",
                message: "\"\(name)\" is not a timing curve. To fix, use one of \(Self.names), or control points.")
        }
    }

    /// The eased progress for a progress in time.
    /// - Parameter progress: fraction of the duration elapsed, clamped to [0, 1].
    /// - Returns: the fraction of the change to apply (0 at 0, 1 at 1).
    public func value(at progress: Double) -> Double {
        switch self {
        case .linear:
            guard progress > 0 else { return 0 }
            return min(progress, 1)
        case .cubicBezier(let curve):
            return curve.value(at: progress)
        }
    }

    /// `"linear"` or the curve's control points.
    public var description: String {
        switch self {
        case .linear: return "linear"
        case .cubicBezier(let curve): return curve.description
        }
    }
}

/// Linear interpolation of one component: `from + (to - from) * fraction`.
/// - Parameters:
///   - from: the value at fraction 0.
///   - to: the value at fraction 1.
///   - fraction: usually an eased progress; values outside [0, 1] extrapolate (overshoot).
/// - Returns: the interpolated value; exactly `to` when `fraction == 1`.
@inlinable
public func interpolate(from: Double, to: Double, fraction: Double) -> Double {
    fraction == 1 ? to : from + (to - from) * fraction
}
