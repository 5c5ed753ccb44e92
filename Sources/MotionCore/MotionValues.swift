// The value types shared across the plugin boundary's two sides (`JSONValue`, `Quaternion`) live in
// MotionValues, which the host side and the SDK both depend on; this module re-exports it, so its users see
// one `JSONValue` and one `Quaternion` without importing MotionValues themselves.
@_exported import MotionValues
