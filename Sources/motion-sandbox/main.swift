// motion-sandbox: the process an isolated plugin runs in, started by motion-host (MotionHost's IsolatedPlugin)
// with its channels as descriptors 3 and 4 and the shared memory as 5. Not for running by hand.
import MotionHost

SandboxServer.main()
