// MotionCore: plans, transactions, the scheduler and its performers.
