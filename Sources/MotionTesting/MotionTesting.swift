// MotionTesting: test support for the runtime.
